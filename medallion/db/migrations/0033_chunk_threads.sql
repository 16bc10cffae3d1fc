-- Search lends a candidate turn a share of the scores of the turns just before and after it in its
-- thread (serve/retrieve.py, serve/fusion.py). A chunk carries its event's thread, the same key its
-- context is read by (silver/chunks.py: metadata.thread when the source named one, else the provenance
-- root), so the turns beside a candidate are one index probe each, in Bronze order.
SET LOCAL ROLE medallion_owner;

ALTER TABLE silver.chunks ADD COLUMN thread text;
-- every chunk row is rewritten: the vector and full-text indexes are rebuilt once after, not row by row
SELECT silver.suspend_search_indexes();
UPDATE silver.chunks c SET thread = coalesce(e.metadata ->> 'thread', e.provenance_root)
FROM bronze.events e WHERE e.event_id = c.bronze_event_id;
UPDATE silver.chunks SET thread = provenance_root WHERE thread IS NULL;  -- an event since erased
SELECT silver.ensure_search_indexes();
ALTER TABLE silver.chunks ALTER COLUMN thread SET NOT NULL;
COMMENT ON COLUMN silver.chunks.thread IS
    'The thread of the chunk''s event: metadata.thread when the source named one, else the provenance root.';

CREATE INDEX chunks_thread ON silver.chunks (namespace, thread, bronze_event_id);
