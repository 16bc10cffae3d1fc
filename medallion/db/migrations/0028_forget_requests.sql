-- Forget on request: when a speaker asks the memory to forget something of their own ("please forget
-- my ..."), the matching facts and chunks are withheld from serving at once, and an erasure request is
-- filed for the two-person approval that already exists.
--
-- * silver.withheld is derived (silver/forget_requests.py, after each derivation): one row per fact
--   or chunk a forget request withholds, naming the request's Bronze event and the data subject who
--   asked. A rebuild re-creates it from Bronze.
-- * The tool login never reads a withheld fact or chunk: the row-level-security policies of
--   silver.facts and silver.chunks leave them out, so search, recall, list, current, history, the
--   graph and the wiki (all read as the tool login) never return them. The tool login reads
--   silver.withheld itself (scoped like every Silver table) to say that a fact is withheld and at
--   whose request.
-- * bronze.file_forget_erasure files the erasure request of one event for one forget request,
--   callable by the engine login only. The requester is read from the forget event itself
--   ('subject:<actor>' for the speaker's own data, 'speaker:<actor>' for someone else's); the request
--   is idempotent on (forget event, event), so a rebuild never files it twice. It stays pending until
--   an admin approves it (the requester is never an admin's principal, so another person decides).
SET LOCAL ROLE medallion_owner;

CREATE TABLE silver.withheld (
    item_id          text        NOT NULL,
    item_kind        text        NOT NULL CHECK (item_kind IN ('fact', 'chunk')),
    namespace        text        NOT NULL,
    bronze_event_id  bigint      NOT NULL,
    requested_by     text        NOT NULL CHECK (length(btrim(requested_by)) > 0),
    reason           text        NOT NULL,
    recorded_at      timestamptz NOT NULL,
    fingerprint      text        NOT NULL,
    PRIMARY KEY (item_id, bronze_event_id)
);
CREATE INDEX withheld_namespace ON silver.withheld (namespace);
COMMENT ON TABLE silver.withheld IS
    'Facts and chunks withheld from serving because their data subject asked the memory to forget them '
    '(derived from the forget request''s Bronze event; rebuilt with Silver).';
COMMENT ON COLUMN silver.withheld.item_id IS 'The withheld fact_id or chunk_id.';
COMMENT ON COLUMN silver.withheld.item_kind IS 'fact or chunk.';
COMMENT ON COLUMN silver.withheld.bronze_event_id IS 'The Bronze event that asked to forget (the forget request).';
COMMENT ON COLUMN silver.withheld.requested_by IS 'The data subject who asked: the forget request''s actor.';
COMMENT ON COLUMN silver.withheld.reason IS 'Why it is withheld, in one sentence (no content of the item).';
COMMENT ON COLUMN silver.withheld.recorded_at IS 'When the forget request was received (Bronze received_at).';

ALTER TABLE silver.withheld ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_all ON silver.withheld TO medallion_engine USING (true) WITH CHECK (true);
CREATE POLICY tool_namespaces ON silver.withheld FOR SELECT TO medallion_tool
    USING (namespace = ANY ((SELECT auth.scope())::text[]) OR '*' = ANY ((SELECT auth.scope())::text[]));
GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON silver.withheld TO medallion_engine;
GRANT SELECT ON silver.withheld TO medallion_tool;

-- The tool login's view of facts and chunks: its namespaces, without what a data subject withheld.
DROP POLICY tool_namespaces ON silver.facts;
CREATE POLICY tool_namespaces ON silver.facts FOR SELECT TO medallion_tool
    USING ((namespace = ANY ((SELECT auth.scope())::text[]) OR '*' = ANY ((SELECT auth.scope())::text[]))
           AND NOT EXISTS (SELECT 1 FROM silver.withheld w WHERE w.item_id = fact_id));
DROP POLICY tool_namespaces ON silver.chunks;
CREATE POLICY tool_namespaces ON silver.chunks FOR SELECT TO medallion_tool
    USING ((namespace = ANY ((SELECT auth.scope())::text[]) OR '*' = ANY ((SELECT auth.scope())::text[]))
           AND NOT EXISTS (SELECT 1 FROM silver.withheld w WHERE w.item_id = chunk_id));

ALTER TABLE bronze.erasure_requests ADD COLUMN forget_event_id bigint;
COMMENT ON COLUMN bronze.erasure_requests.forget_event_id IS
    'The Bronze event in which a speaker asked the memory to forget (a request filed by the derivation); '
    'null for a request an admin filed.';
CREATE UNIQUE INDEX erasure_requests_forget ON bronze.erasure_requests (forget_event_id, event_id)
    WHERE forget_event_id IS NOT NULL;

-- File (once) the erasure request of event p_event_id that forget request p_forget_event_id asks for;
-- p_own: the speaker asks about their own data. Returns the request's id (an existing one when this
-- forget request already filed it, or when an erasure of the event is already pending), or NULL when
-- the event is gone or the pair is not a forget request and an earlier event of its namespace.
CREATE FUNCTION bronze.file_forget_erasure(p_forget_event_id bigint, p_event_id bigint, p_own boolean)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze AS $$
DECLARE
    fe  bronze.events%ROWTYPE;
    ev  bronze.events%ROWTYPE;
    rid bigint;
BEGIN
    SELECT r.request_id INTO rid FROM bronze.erasure_requests r
    WHERE r.forget_event_id = p_forget_event_id AND r.event_id = p_event_id;
    IF rid IS NOT NULL THEN
        RETURN rid;
    END IF;
    SELECT * INTO fe FROM bronze.events WHERE event_id = p_forget_event_id;
    SELECT * INTO ev FROM bronze.events WHERE event_id = p_event_id;
    IF fe.event_id IS NULL OR ev.event_id IS NULL OR fe.kind NOT IN ('transcript', 'note', 'issue')
       OR fe.actor IS NULL OR ev.namespace <> fe.namespace
       OR (ev.received_at, ev.event_id) >= (fe.received_at, fe.event_id) THEN
        RETURN NULL;
    END IF;
    SELECT r.request_id INTO rid FROM bronze.erasure_requests r
    WHERE r.event_id = p_event_id AND r.status = 'pending';
    IF rid IS NOT NULL THEN
        RETURN rid;
    END IF;
    INSERT INTO bronze.erasure_requests (event_id, namespace, reason, requested_by, forget_event_id)
    VALUES (p_event_id, ev.namespace,
            format('%s asked the memory to forget %s (forget request in event %s)', fe.actor,
                   CASE WHEN p_own THEN 'their own data' ELSE 'someone else''s data' END, fe.event_id),
            CASE WHEN p_own THEN 'subject:' ELSE 'speaker:' END || fe.actor, p_forget_event_id)
    RETURNING request_id INTO rid;
    RETURN rid;
END
$$;
REVOKE ALL ON FUNCTION bronze.file_forget_erasure(bigint, bigint, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bronze.file_forget_erasure(bigint, bigint, boolean) TO medallion_engine;
