"""Clients of peer systems the memory talks to (Hindsight). They know nothing of the ledger."""
