-- A thread is named by metadata.thread when the source gives one (a chat export or ticket system
-- with one provenance root per message), else by the provenance root. The previous turn of a thread
-- (a chunk's context) is found through this index; it replaces the one on the provenance root alone.
SET LOCAL ROLE medallion_owner;

CREATE INDEX events_thread_key ON bronze.events
    (namespace, (coalesce(metadata ->> 'thread', provenance_root)), event_id);
DROP INDEX bronze.events_thread;
