-- Capabilities (SPEC G2) and the erasure flow (SPEC B7).
SET LOCAL ROLE medallion_owner;

CREATE TABLE auth.capabilities (
    capability_id  text PRIMARY KEY,
    principal      text        NOT NULL CHECK (length(btrim(principal)) > 0),
    token_hash     text        NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    verbs          text[]      NOT NULL
        CHECK (cardinality(verbs) > 0
               AND verbs <@ ARRAY['search', 'read', 'list', 'remember', 'overlay', 'admin']::text[]),
    namespaces     text[]      NOT NULL CHECK (cardinality(namespaces) > 0),
    max_authority  smallint    NOT NULL DEFAULT 5 CHECK (max_authority BETWEEN 1 AND 5),
    expires_at     timestamptz,
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    created_by     text        NOT NULL,
    revoked_at     timestamptz
);
COMMENT ON COLUMN auth.capabilities.max_authority IS
    'The most authoritative tier (lowest number, 1 = user) this token may write; 5 = inference only.';
COMMENT ON COLUMN auth.capabilities.namespaces IS 'Namespaces granted; ''*'' grants every namespace.';

CREATE FUNCTION auth.has_verb(p_principal text, p_verb text, p_namespace text)
RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM auth.capabilities c
        WHERE c.principal = p_principal
          AND p_verb = ANY (c.verbs)
          AND (p_namespace = ANY (c.namespaces) OR '*' = ANY (c.namespaces))
          AND c.revoked_at IS NULL
          AND (c.expires_at IS NULL OR c.expires_at > clock_timestamp())
    )
$$;

GRANT SELECT, INSERT, UPDATE ON auth.capabilities TO medallion_engine;

CREATE FUNCTION bronze.request_erasure(p_event_id bigint, p_reason text, p_requested_by text)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze AS $$
DECLARE
    ev bronze.events%ROWTYPE;
    rid bigint;
BEGIN
    SELECT * INTO ev FROM bronze.events WHERE event_id = p_event_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'event % does not exist (or was already erased)', p_event_id
            USING ERRCODE = 'no_data_found';
    END IF;
    IF EXISTS (SELECT 1 FROM bronze.erasure_requests
               WHERE event_id = p_event_id AND status = 'pending') THEN
        RAISE EXCEPTION 'an erasure of event % is already pending approval', p_event_id
            USING ERRCODE = 'unique_violation';
    END IF;
    INSERT INTO bronze.erasure_requests (event_id, namespace, reason, requested_by)
    VALUES (p_event_id, ev.namespace, p_reason, p_requested_by)
    RETURNING request_id INTO rid;
    RETURN rid;
END
$$;

CREATE FUNCTION bronze.approve_erasure(p_request_id bigint, p_approved_by text)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    req bronze.erasure_requests%ROWTYPE;
    ev bronze.events%ROWTYPE;
BEGIN
    SELECT * INTO req FROM bronze.erasure_requests WHERE request_id = p_request_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'erasure request % does not exist', p_request_id USING ERRCODE = 'no_data_found';
    END IF;
    IF req.status <> 'pending' THEN
        RAISE EXCEPTION 'erasure request % was already executed', p_request_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF req.requested_by = p_approved_by THEN
        RAISE EXCEPTION 'the requester (%) cannot approve their own erasure: another admin must approve it',
            p_approved_by USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT auth.has_verb(p_approved_by, 'admin', req.namespace) THEN
        RAISE EXCEPTION '% does not hold the admin capability for this namespace and cannot approve erasures',
            p_approved_by USING ERRCODE = 'insufficient_privilege';
    END IF;

    SELECT * INTO ev FROM bronze.events WHERE event_id = req.event_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'event % no longer exists', req.event_id USING ERRCODE = 'no_data_found';
    END IF;

    UPDATE bronze.erasure_requests SET approved_by = p_approved_by WHERE request_id = p_request_id;
    INSERT INTO bronze.tombstones (event_id, namespace, source, source_event_id, kind, content_hash,
                                   chain_hash, occurred_at, received_at, request_id, requested_by,
                                   approved_by, reason)
    VALUES (ev.event_id, ev.namespace, ev.source, ev.source_event_id, ev.kind, ev.content_hash,
            ev.chain_hash, ev.occurred_at, ev.received_at, req.request_id, req.requested_by,
            p_approved_by, req.reason);
    PERFORM set_config('medallion.erasure_request', p_request_id::text, true);
    DELETE FROM bronze.events WHERE event_id = ev.event_id;
    PERFORM set_config('medallion.erasure_request', '', true);
    UPDATE bronze.erasure_requests SET status = 'executed', executed_at = clock_timestamp()
    WHERE request_id = p_request_id;
    RETURN ev.event_id;
END
$$;

REVOKE ALL ON FUNCTION bronze.request_erasure(bigint, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.approve_erasure(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bronze.request_erasure(bigint, text, text) TO medallion_engine;
GRANT EXECUTE ON FUNCTION bronze.approve_erasure(bigint, text) TO medallion_engine;
