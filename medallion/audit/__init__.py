"""Audit: the drift audit, Bronze integrity reporting and the Hindsight peer."""
