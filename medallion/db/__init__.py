"""Database plumbing: the embedded server, connections, roles and migrations."""
