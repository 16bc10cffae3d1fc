-- An approved erasure leaves no copy of what it erased, and a request that can no longer do anything
-- is closed.
--
-- bronze.forget_erased(request) runs right after an approval, before Silver is re-derived (it reads
-- the Silver rows of the erased events to know what to look for): it deletes the quarantined lines of
-- the erased events (their raw bytes), the tool calls that returned an erased fact or chunk or whose
-- query is made of an erased passage's words, the Gold mart rows that name an erased fact or quote
-- its statement, and withholds drift findings that quoted an erased statement. It acts only for an
-- executed request, so it needs no identity of its own: two people already agreed.
--
-- A request is closed without erasing anything when a person with admin in its namespace cancels it
-- (bronze.cancel_erasure), or as superseded when its events are all gone already
-- (bronze.close_superseded_erasures), for instance taken by an erasure of their actor.
SET LOCAL ROLE medallion_owner;

ALTER TABLE bronze.erasure_requests DROP CONSTRAINT erasure_requests_status_check;
ALTER TABLE bronze.erasure_requests ADD CONSTRAINT erasure_requests_status_check
    CHECK (status IN ('pending', 'executed', 'cancelled', 'superseded'));
ALTER TABLE bronze.erasure_requests ADD COLUMN closed_by text;
ALTER TABLE bronze.erasure_requests ADD COLUMN closed_at timestamptz;
COMMENT ON COLUMN bronze.erasure_requests.closed_by IS
    'Who cancelled the request, or ''superseded'' when its events were gone before it was approved.';

-- Quarantine stays append-only, but a row of an erased event leaves with it, inside bronze.forget_erased.
DROP TRIGGER quarantine_immutable ON bronze.quarantine;
CREATE TRIGGER quarantine_immutable BEFORE UPDATE OR TRUNCATE ON bronze.quarantine
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();

-- Per statement (so even a DELETE that matches no row is refused) and per row (the row must be of the
-- executed request's namespace).
CREATE FUNCTION bronze.guard_quarantine_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    executing bigint := nullif(current_setting('medallion.erasure_forget', true), '')::bigint;
    row_namespace text;
BEGIN
    IF TG_LEVEL = 'ROW' THEN
        row_namespace := coalesce(OLD.namespace, bronze.quarantined_field(OLD.raw, 'namespace'));
    END IF;
    IF executing IS NOT NULL AND EXISTS (
        SELECT 1 FROM bronze.erasure_requests r
        WHERE r.request_id = executing AND r.status = 'executed'
          AND (TG_LEVEL = 'STATEMENT' OR r.namespace = row_namespace)
    ) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'DELETE on bronze.quarantine is not allowed: Bronze is append-only (erasure needs an approved request)'
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER quarantine_guard_delete_statement BEFORE DELETE ON bronze.quarantine
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.guard_quarantine_delete();
CREATE TRIGGER quarantine_guard_delete BEFORE DELETE ON bronze.quarantine
    FOR EACH ROW EXECUTE FUNCTION bronze.guard_quarantine_delete();

-- A field of a quarantined line (its namespace, key or actor), or NULL when the line is not a JSON
-- object with that field as text: a rejected line has no parsed columns, only its raw bytes.
CREATE FUNCTION bronze.quarantined_field(p_raw bytea, p_field text) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog AS $$
BEGIN
    RETURN convert_from(p_raw, 'UTF8')::jsonb ->> p_field;
EXCEPTION WHEN others THEN
    RETURN NULL;
END
$$;

CREATE FUNCTION bronze.forget_erased(p_request_id bigint) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, silver, gold, telemetry AS $$
DECLARE
    req        bronze.erasure_requests%ROWTYPE;
    scope      bronze.erasure_scopes%ROWTYPE;
    events     bigint[];
    facts      text[];
    chunks     text[];
    statements text[];
    quarantine bigint[];
    n_retrievals bigint;
    n_marts    bigint := 0;
    n_rows     bigint;
    n_findings bigint;
    mart       record;
BEGIN
    SELECT * INTO req FROM bronze.erasure_requests WHERE request_id = p_request_id;
    IF req.request_id IS NULL OR req.status <> 'executed' THEN
        RAISE EXCEPTION 'erasure request % has not been executed: there is nothing to forget yet', p_request_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT * INTO scope FROM bronze.erasure_scopes WHERE request_id = p_request_id;
    events := ARRAY(SELECT t.event_id FROM bronze.tombstones t WHERE t.request_id = p_request_id);
    facts := ARRAY(SELECT f.fact_id FROM silver.facts f WHERE f.bronze_event_id = ANY (events));
    chunks := ARRAY(SELECT c.chunk_id FROM silver.chunks c WHERE c.bronze_event_id = ANY (events));
    statements := ARRAY(SELECT DISTINCT f.statement FROM silver.facts f
                        WHERE f.bronze_event_id = ANY (events) AND length(f.statement) >= 8);

    -- Quarantined lines (a rejected line's namespace, key and actor read from its raw bytes): a
    -- conflicting copy of an erased event, a line with its key, the actor's lines (an erasure by
    -- actor), or every line of the namespace (an erasure of the namespace).
    PERFORM set_config('medallion.erasure_forget', p_request_id::text, true);
    WITH gone AS (
        DELETE FROM bronze.quarantine q
        WHERE coalesce(q.namespace, bronze.quarantined_field(q.raw, 'namespace')) = req.namespace
          AND ((scope.request_id IS NOT NULL AND scope.actor IS NULL)
               OR q.conflict_event_id = ANY (events)
               OR EXISTS (SELECT 1 FROM bronze.tombstones t
                          WHERE t.request_id = p_request_id
                            AND t.source = coalesce(q.source, bronze.quarantined_field(q.raw, 'source'))
                            AND t.source_event_id = coalesce(q.source_event_id,
                                                             bronze.quarantined_field(q.raw, 'source_event_id')))
               OR (scope.actor IS NOT NULL AND bronze.quarantined_field(q.raw, 'actor') = scope.actor))
        RETURNING q.quarantine_id)
    SELECT array_agg(quarantine_id) INTO quarantine FROM gone;
    PERFORM set_config('medallion.erasure_forget', '', true);
    quarantine := coalesce(quarantine, '{}');

    -- Tool calls that returned an erased fact or chunk, or asked with an erased passage's words.
    DELETE FROM telemetry.retrievals r
    WHERE r.fact_ids && facts OR r.chunk_ids && chunks
       OR ((r.namespace = req.namespace OR r.namespace IS NULL) AND r.query IS NOT NULL
           AND numnode(plainto_tsquery('english', r.query)) > 0
           AND EXISTS (SELECT 1 FROM silver.chunks c
                       WHERE c.bronze_event_id = ANY (events)
                         AND to_tsvector('english', c.text) @@ plainto_tsquery('english', r.query)));
    GET DIAGNOSTICS n_retrievals = ROW_COUNT;

    -- Gold marts (dbt's tables, rebuilt by the next materialization): rows naming an erased fact,
    -- quarantined line or event, or quoting an erased statement.
    FOR mart IN SELECT c.relname FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
                WHERE s.nspname = 'gold_marts' AND c.relkind IN ('r', 'p') ORDER BY 1 LOOP
        EXECUTE format(
            'DELETE FROM gold_marts.%I m WHERE EXISTS ('
            '  SELECT 1 FROM jsonb_each_text(to_jsonb(m)) v'
            '  WHERE (v.key IN (''quarantine_id'', ''bronze_event_id'', ''event_id'')'
            '         AND v.value = ANY ($3::text[] || $4::text[]))'
            '     OR EXISTS (SELECT 1 FROM unnest($1::text[] || $2::text[]) n WHERE strpos(v.value, n) > 0))',
            mart.relname)
        USING facts, statements, quarantine::text[], events::text[];
        GET DIAGNOSTICS n_rows = ROW_COUNT;
        n_marts := n_marts + n_rows;
    END LOOP;

    -- Drift findings keep their check and count; a detail that quoted an erased statement is withheld.
    UPDATE gold.drift_report d
    SET detail = format('(detail withheld: it quoted content that erasure request %s removed)', p_request_id)
    WHERE (d.namespace = req.namespace OR d.namespace IS NULL)
      AND EXISTS (SELECT 1 FROM unnest(statements || facts) n WHERE strpos(d.detail, n) > 0);
    GET DIAGNOSTICS n_findings = ROW_COUNT;

    RETURN jsonb_build_object('events', cardinality(events), 'facts', cardinality(facts),
                              'chunks', cardinality(chunks), 'quarantine', cardinality(quarantine),
                              'retrievals', n_retrievals, 'mart_rows', n_marts, 'drift_findings', n_findings);
END
$$;

-- Cancel a pending request: anyone with admin in its namespace (the requester included) may.
CREATE FUNCTION bronze.cancel_erasure(p_request_id bigint, p_token text, p_local_name text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    req bronze.erasure_requests%ROWTYPE;
    who text;
BEGIN
    SELECT * INTO req FROM bronze.erasure_requests WHERE request_id = p_request_id FOR UPDATE;
    who := bronze.erasure_actor(req.namespace, p_token, p_local_name,
        format('no erasure request %s this capability may cancel (it needs admin in the namespace)', p_request_id));
    IF req.request_id IS NULL THEN
        RAISE EXCEPTION 'erasure request % does not exist', p_request_id USING ERRCODE = 'no_data_found';
    END IF;
    IF req.status <> 'pending' THEN
        RAISE EXCEPTION 'erasure request % is already %: only a pending request can be cancelled',
            p_request_id, req.status USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE bronze.erasure_requests SET status = 'cancelled', closed_by = who, closed_at = clock_timestamp()
    WHERE request_id = p_request_id;
    RETURN who;
END
$$;

-- Close every pending request whose events are all gone (a single event erased by another request,
-- or a scope with nothing left to match) as superseded; returns how many were closed.
CREATE FUNCTION bronze.close_superseded_erasures() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze AS $$
DECLARE
    closed bigint;
BEGIN
    UPDATE bronze.erasure_requests r
    SET status = 'superseded', closed_by = 'superseded', closed_at = clock_timestamp()
    WHERE r.status = 'pending'
      AND NOT EXISTS (
          SELECT 1 FROM bronze.events e
          LEFT JOIN bronze.erasure_scopes s ON s.request_id = r.request_id
          WHERE CASE WHEN r.event_id IS NOT NULL THEN e.event_id = r.event_id
                     ELSE e.namespace = r.namespace AND (s.actor IS NULL OR e.actor = s.actor) END);
    GET DIAGNOSTICS closed = ROW_COUNT;
    RETURN closed;
END
$$;

REVOKE ALL ON FUNCTION bronze.quarantined_field(bytea, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.forget_erased(bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.cancel_erasure(bigint, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.close_superseded_erasures() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bronze.forget_erased(bigint) TO medallion_engine;
GRANT EXECUTE ON FUNCTION bronze.cancel_erasure(bigint, text, text) TO medallion_engine;
GRANT EXECUTE ON FUNCTION bronze.close_superseded_erasures() TO medallion_engine;
