"""Publish: what the memory writes for people to read (the wiki and the data dictionary)."""
