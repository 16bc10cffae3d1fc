-- Gold tools (SPEC G1-G9): the firewall the tool role reads through, overlays as Silver rows, the
-- approvals of G7.
--
-- Row-level security: every Silver table the tools read carries a policy that shows the tool role
-- only the namespaces set for the transaction (`SET LOCAL medallion.namespaces = 'a,b'`, set by
-- gold/tools.py from the caller's capability). A query that forgets its namespace filter still sees
-- nothing else. The engine keeps full access through its own permissive policy; the owner (dbt,
-- migrations) is not subject to RLS.
SET LOCAL ROLE medallion_owner;

CREATE FUNCTION auth.visible(p_namespace text) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT p_namespace = ANY (string_to_array(coalesce(current_setting('medallion.namespaces', true), ''), ','))
        OR '*' = ANY (string_to_array(coalesce(current_setting('medallion.namespaces', true), ''), ','))
$$;
COMMENT ON FUNCTION auth.visible(text) IS
    'True when the namespace is among those set for the transaction (medallion.namespaces); ''*'' = all.';

-- Overlays (SPEC G6): a person's edit, annotation or redaction of a fact span. The Bronze overlay
-- event is the truth; this table is its anchoring against the current ledger, recomputed by every
-- derivation (so it survives rebuilds: an overlay re-anchors by exact quote, then fuzzy match).
CREATE TABLE silver.overlays (
    bronze_event_id  bigint PRIMARY KEY,
    namespace        text        NOT NULL,
    target_fact_id   text        NOT NULL,
    fact_id          text,
    action           text        NOT NULL CHECK (action IN ('edit', 'annotate', 'redact')),
    exact            text        NOT NULL CHECK (length(exact) > 0),
    prefix           text        NOT NULL DEFAULT '',
    suffix           text        NOT NULL DEFAULT '',
    text             text,
    note             text,
    status           text        NOT NULL CHECK (status IN ('anchored', 'reanchored', 'unanchored', 'replaced',
                                                            'retracted')),
    anchor_method    text        CHECK (anchor_method IN ('direct', 'exact', 'fuzzy')),
    anchor_score     real,
    span_start       integer,
    span_end         integer,
    author           text,
    replaces         bigint,
    recorded_at      timestamptz NOT NULL,
    provenance_root  text        NOT NULL,
    fingerprint      text        NOT NULL,
    CHECK ((status IN ('anchored', 'reanchored')) = (fact_id IS NOT NULL))
);
CREATE INDEX overlays_fact ON silver.overlays (fact_id) WHERE fact_id IS NOT NULL;
CREATE INDEX overlays_namespace ON silver.overlays (namespace);
COMMENT ON TABLE silver.overlays IS
    'Overlay events anchored to the current ledger: which fact each applies to now, how it was found.';

-- Approvals (SPEC G7): overwriting or retracting a person's overlay waits for another person.
CREATE TABLE gold.approvals (
    approval_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind            text        NOT NULL CHECK (kind IN ('overlay_overwrite', 'overlay_retract')),
    namespace       text        NOT NULL,
    fact_id         text        NOT NULL,
    overlay_event_id bigint     NOT NULL,
    proposal        jsonb       NOT NULL,
    reason          text,
    requested_by    text        NOT NULL,
    requested_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    decided_by      text,
    decided_at      timestamptz,
    result_event_id bigint,
    CHECK (decided_by IS NULL OR decided_by <> requested_by)
);
COMMENT ON TABLE gold.approvals IS
    'Requests to overwrite or retract a person''s overlay; a different principal approves (SPEC G7).';

-- What the tools may know of a Bronze event: its provenance, never its content, and only in the
-- transaction's namespaces. The tool role has no privilege on bronze.* (SPEC G3).
CREATE VIEW gold.event_provenance WITH (security_barrier = true) AS
    SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.actor, e.occurred_at,
           e.received_at, e.provenance_root, e.authority
    FROM bronze.events e
    WHERE auth.visible(e.namespace);
COMMENT ON VIEW gold.event_provenance IS
    'Provenance of Bronze events (no content) in the transaction''s namespaces, for the Gold tools.';

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['facts', 'entities', 'edges', 'chunks', 'documents', 'working_memory', 'overlays']
    LOOP
        EXECUTE format('ALTER TABLE silver.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY engine_all ON silver.%I TO medallion_engine USING (true) WITH CHECK (true)', t);
        EXECUTE format('CREATE POLICY tool_namespaces ON silver.%I FOR SELECT TO medallion_tool '
                       'USING (auth.visible(namespace))', t);
        EXECUTE format('GRANT SELECT ON silver.%I TO medallion_tool', t);
    END LOOP;
END
$$;

ALTER TABLE telemetry.retrievals ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_all ON telemetry.retrievals TO medallion_engine USING (true) WITH CHECK (true);
CREATE POLICY tool_append ON telemetry.retrievals FOR INSERT TO medallion_tool WITH CHECK (true);
CREATE POLICY tool_namespaces ON telemetry.retrievals FOR SELECT TO medallion_tool
    USING (auth.visible(namespace));

GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON silver.overlays TO medallion_engine;
GRANT SELECT, INSERT, UPDATE ON gold.approvals TO medallion_engine;
GRANT SELECT ON gold.event_provenance TO medallion_tool, medallion_engine;
GRANT USAGE ON SCHEMA auth TO medallion_tool;
GRANT EXECUTE ON FUNCTION auth.visible(text) TO medallion_tool, medallion_engine;
REVOKE EXECUTE ON FUNCTION auth.has_verb(text, text, text) FROM PUBLIC;
-- The engine-side SQL helpers stay engine-only.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA silver FROM PUBLIC;
GRANT EXECUTE ON FUNCTION silver.facts_as_of(text, timestamptz, timestamptz) TO medallion_tool;
