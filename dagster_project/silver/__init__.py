"""Silver: derived, engine-owned knowledge (distill, embed, resolve, bitemporal ledger). Next issue."""
