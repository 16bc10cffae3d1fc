"""The asset modules, one per layer: each asset body calls engine functions and returns metadata."""
