"""Silver: derived, engine-owned knowledge (distill, embed, resolve, bitemporal ledger), rebuildable from Bronze."""
