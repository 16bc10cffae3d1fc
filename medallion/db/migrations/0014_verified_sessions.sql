-- Verified sessions: the namespaces a tool login sees, and the principal behind an approval, come
-- from a capability checked inside the database, never from a setting or an argument the caller
-- writes.
--
-- auth.sessions holds one grant per tool backend: (pid, nonce) → capability, principal, namespaces.
-- auth.enter(token) verifies a token and records the grant for the calling backend; the local admin's
-- tools are admitted by the engine login (auth.admit_local), which already reads everything. The
-- nonce is random and lives only in the backend that was granted (medallion.session) and in this
-- table, which the tool role cannot read or write: a later backend that reuses the pid does not know
-- it, and setting medallion.namespaces only narrows what the grant allows.
SET LOCAL ROLE medallion_owner;

CREATE TABLE auth.sessions (
    pid            integer     NOT NULL,
    nonce          text        NOT NULL,
    capability_id  text        REFERENCES auth.capabilities (capability_id),
    principal      text        NOT NULL CHECK (length(btrim(principal)) > 0),
    namespaces     text[]      NOT NULL,
    opened_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (pid, nonce)
);
COMMENT ON TABLE auth.sessions IS
    'Per-backend grants of the tool login: which capability (NULL = the local admin) and namespaces it acts for.';

-- The grant of the calling backend, if its nonce matches and its capability is still valid.
CREATE FUNCTION auth.session_grant(OUT principal text, OUT capability_id text, OUT namespaces text[])
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
    SELECT s.principal, s.capability_id, s.namespaces
    FROM auth.sessions s
    LEFT JOIN auth.capabilities c ON c.capability_id = s.capability_id
    WHERE s.pid = pg_backend_pid()
      AND s.nonce = coalesce(current_setting('medallion.session', true), '')
      AND (s.capability_id IS NULL
           OR (c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > clock_timestamp())))
$$;

-- Sessions of the engine and administrative logins are trusted: they read Bronze directly anyway.
CREATE FUNCTION auth.trusted_session() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT session_user::text <> 'medallion_tool' AND pg_has_role(session_user, 'medallion_engine', 'MEMBER')
$$;

-- The namespaces the current statement may see: the transaction's narrowing (medallion.namespaces)
-- within the backend's verified grant. '*' in the result means every namespace.
CREATE FUNCTION auth.scope() RETURNS text[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
DECLARE
    wanted  text[] := string_to_array(coalesce(current_setting('medallion.namespaces', true), ''), ',');
    granted text[];
BEGIN
    IF auth.trusted_session() THEN
        RETURN wanted;
    END IF;
    SELECT g.namespaces INTO granted FROM auth.session_grant() g;
    IF granted IS NULL THEN
        RETURN ARRAY[]::text[];
    END IF;
    IF '*' = ANY (granted) THEN
        RETURN wanted;
    END IF;
    IF '*' = ANY (wanted) THEN
        RETURN granted;
    END IF;
    RETURN ARRAY(SELECT unnest(wanted) INTERSECT SELECT unnest(granted));
END
$$;
COMMENT ON FUNCTION auth.scope() IS
    'Namespaces visible to the current statement: medallion.namespaces narrowed to the backend''s verified grant.';

CREATE OR REPLACE FUNCTION auth.visible(p_namespace text) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT p_namespace = ANY (s) OR '*' = ANY (s) FROM (SELECT auth.scope() AS s) x
$$;
COMMENT ON FUNCTION auth.visible(text) IS
    'True when the namespace is in auth.scope(): the transaction''s namespaces within the verified grant.';

-- A token presented by the calling backend: verified, recorded as this backend's grant.
CREATE FUNCTION auth.enter(p_token text)
RETURNS TABLE (capability_id text, principal text, verbs text[], namespaces text[], max_authority smallint,
               expires_at timestamptz)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
DECLARE
    cap   auth.capabilities%ROWTYPE;
    nonce text := gen_random_uuid()::text || gen_random_uuid()::text;
BEGIN
    SELECT * INTO cap FROM auth.capabilities c
    WHERE c.token_hash = encode(sha256(convert_to(coalesce(p_token, ''), 'UTF8')), 'hex')
      AND c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > clock_timestamp());
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the token is not a valid capability (unknown, expired or revoked)'
            USING ERRCODE = 'invalid_authorization_specification';
    END IF;
    DELETE FROM auth.sessions s
    WHERE s.pid = pg_backend_pid() OR s.pid NOT IN (SELECT a.pid FROM pg_stat_activity a);
    INSERT INTO auth.sessions (pid, nonce, capability_id, principal, namespaces)
    VALUES (pg_backend_pid(), nonce, cap.capability_id, cap.principal, cap.namespaces);
    PERFORM set_config('medallion.session', nonce, false);
    RETURN QUERY SELECT cap.capability_id, cap.principal, cap.verbs, cap.namespaces, cap.max_authority,
                        cap.expires_at;
END
$$;

-- The local admin's tool backend, admitted to every namespace by the engine login; returns the nonce
-- the tool backend sets as medallion.session.
CREATE FUNCTION auth.admit_local(p_pid integer, p_principal text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
DECLARE
    nonce text := gen_random_uuid()::text || gen_random_uuid()::text;
BEGIN
    IF NOT auth.trusted_session() THEN
        RAISE EXCEPTION 'only the engine or administrative login admits a local session'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    DELETE FROM auth.sessions s WHERE s.pid = p_pid OR s.pid NOT IN (SELECT a.pid FROM pg_stat_activity a);
    INSERT INTO auth.sessions (pid, nonce, capability_id, principal, namespaces)
    VALUES (p_pid, nonce, NULL, p_principal, ARRAY['*']);
    RETURN nonce;
END
$$;

-- The valid capability of a token; raises when it is unknown, expired or revoked.
CREATE FUNCTION auth.valid_capability(p_token text) RETURNS auth.capabilities
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
DECLARE
    cap auth.capabilities%ROWTYPE;
BEGIN
    SELECT * INTO cap FROM auth.capabilities c
    WHERE c.token_hash = encode(sha256(convert_to(coalesce(p_token, ''), 'UTF8')), 'hex')
      AND c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > clock_timestamp());
    IF NOT FOUND THEN
        RAISE EXCEPTION 'the token is not a valid capability (unknown, expired or revoked)'
            USING ERRCODE = 'invalid_authorization_specification';
    END IF;
    RETURN cap;
END
$$;

CREATE FUNCTION auth.allows(p_cap auth.capabilities, p_verb text, p_namespace text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT p_namespace IS NOT NULL AND p_verb = ANY (p_cap.verbs)
       AND (p_namespace = ANY (p_cap.namespaces) OR '*' = ANY (p_cap.namespaces))
$$;

-- The local admin is the administrative login (a superuser on the embedded server): only it may act
-- without a token, under the name it gives.
CREATE FUNCTION auth.local_principal(p_name text) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    IF session_user::text IN ('medallion_engine', 'medallion_tool')
       OR NOT pg_has_role(session_user, 'medallion_owner', 'MEMBER') THEN
        RAISE EXCEPTION 'acting without a token needs the administrative login'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF p_name IS NULL OR p_name !~ '^local:[^[:space:]]+$' THEN
        RAISE EXCEPTION 'the local admin acts as local:<user>' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN p_name;
END
$$;

-- Row-level security and the provenance view read the scope once per statement (an InitPlan), not
-- once per row.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['facts', 'entities', 'edges', 'chunks', 'documents', 'working_memory', 'overlays']
    LOOP
        EXECUTE format('DROP POLICY tool_namespaces ON silver.%I', t);
        EXECUTE format('CREATE POLICY tool_namespaces ON silver.%I FOR SELECT TO medallion_tool '
                       'USING (namespace = ANY ((SELECT auth.scope())::text[]) OR ''*'' = ANY ((SELECT auth.scope())::text[]))', t);
    END LOOP;
END
$$;

-- Telemetry: a tool session reads its own capability's rows in its namespaces (the local admin: all).
DROP POLICY tool_namespaces ON telemetry.retrievals;
CREATE POLICY tool_namespaces ON telemetry.retrievals FOR SELECT TO medallion_tool
    USING ('*' = ANY ((SELECT auth.scope())::text[])
           OR (namespace = ANY ((SELECT auth.scope())::text[])
               AND principal = (SELECT coalesce(g.capability_id, g.principal) FROM auth.session_grant() g)));

-- security_barrier: a caller's own predicate (a cast that fails, a function) must not run on rows the
-- scope filter would drop; the index join on event_id uses a leakproof operator and is still pushed down.
CREATE OR REPLACE VIEW gold.event_provenance WITH (security_barrier = true) AS
    SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.actor, e.occurred_at,
           e.received_at, e.provenance_root, e.authority
    FROM bronze.events e
    WHERE e.namespace = ANY ((SELECT auth.scope())::text[]) OR '*' = ANY ((SELECT auth.scope())::text[]);

-- Erasure (two people, both verified here): a token's principal, or the administrative login's
-- local:<user>. No caller names anyone else.
DROP FUNCTION bronze.request_erasure(bigint, text, text);
DROP FUNCTION bronze.approve_erasure(bigint, text);

-- p_token NULL: the administrative login acting as p_local_name. A token caller learns nothing about
-- events outside its namespaces: a missing event and a foreign one get the same answer.
CREATE FUNCTION bronze.request_erasure(p_event_id bigint, p_reason text, p_token text, p_local_name text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    cap auth.capabilities%ROWTYPE;
    ns  text;
    who text;
    rid bigint;
BEGIN
    IF p_token IS NULL THEN
        who := auth.local_principal(p_local_name);
    ELSE
        cap := auth.valid_capability(p_token);
        who := cap.principal;
    END IF;
    SELECT namespace INTO ns FROM bronze.events WHERE event_id = p_event_id;
    IF p_token IS NOT NULL AND NOT coalesce(auth.allows(cap, 'admin', ns), false) THEN
        RAISE EXCEPTION 'no event % this capability may erase (erasure needs admin in the event''s namespace)',
            p_event_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF ns IS NULL THEN
        RAISE EXCEPTION 'event % does not exist (or was already erased)', p_event_id USING ERRCODE = 'no_data_found';
    END IF;
    IF EXISTS (SELECT 1 FROM bronze.erasure_requests WHERE event_id = p_event_id AND status = 'pending') THEN
        RAISE EXCEPTION 'an erasure of event % is already pending approval', p_event_id
            USING ERRCODE = 'unique_violation';
    END IF;
    INSERT INTO bronze.erasure_requests (event_id, namespace, reason, requested_by)
    VALUES (p_event_id, ns, p_reason, who)
    RETURNING request_id INTO rid;
    RETURN rid;
END
$$;

CREATE FUNCTION bronze.approve_erasure(p_request_id bigint, p_token text, p_local_name text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    cap auth.capabilities%ROWTYPE;
    req bronze.erasure_requests%ROWTYPE;
    ev  bronze.events%ROWTYPE;
    who text;
BEGIN
    IF p_token IS NULL THEN
        who := auth.local_principal(p_local_name);
    ELSE
        cap := auth.valid_capability(p_token);
        who := cap.principal;
    END IF;
    SELECT * INTO req FROM bronze.erasure_requests WHERE request_id = p_request_id FOR UPDATE;
    IF p_token IS NOT NULL AND NOT coalesce(auth.allows(cap, 'admin', req.namespace), false) THEN
        RAISE EXCEPTION 'no erasure request % this capability may approve (it needs admin in the namespace)',
            p_request_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF req.request_id IS NULL THEN
        RAISE EXCEPTION 'erasure request % does not exist', p_request_id USING ERRCODE = 'no_data_found';
    END IF;
    IF req.status <> 'pending' THEN
        RAISE EXCEPTION 'erasure request % was already executed', p_request_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF req.requested_by = who OR (req.requested_by LIKE 'local:%' AND who LIKE 'local:%') THEN
        RAISE EXCEPTION 'the requester (%) cannot approve their own erasure: another admin must, with their own token',
            req.requested_by
            USING ERRCODE = 'insufficient_privilege';
    END IF;

    SELECT * INTO ev FROM bronze.events WHERE event_id = req.event_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'event % no longer exists', req.event_id USING ERRCODE = 'no_data_found';
    END IF;

    UPDATE bronze.erasure_requests SET approved_by = who WHERE request_id = p_request_id;
    INSERT INTO bronze.tombstones (event_id, namespace, source, source_event_id, kind, content_hash,
                                   chain_hash, occurred_at, received_at, request_id, requested_by,
                                   approved_by, reason)
    VALUES (ev.event_id, ev.namespace, ev.source, ev.source_event_id, ev.kind, ev.content_hash,
            ev.chain_hash, ev.occurred_at, ev.received_at, req.request_id, req.requested_by,
            who, req.reason);
    PERFORM set_config('medallion.erasure_request', p_request_id::text, true);
    DELETE FROM bronze.events WHERE event_id = ev.event_id;
    PERFORM set_config('medallion.erasure_request', '', true);
    UPDATE bronze.erasure_requests SET status = 'executed', executed_at = clock_timestamp()
    WHERE request_id = p_request_id;
    RETURN ev.event_id;
END
$$;

-- Overlay approvals (G7): decided by a verified principal other than the requester, and bound to
-- the overlay event that carries them out. The derivation honours `replaces` / `retracts` only for
-- an event an approved request names.
CREATE FUNCTION gold.approve_overlay(p_approval_id bigint, p_result_event_id bigint, p_token text,
                                     p_local_name text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, gold, bronze, auth AS $$
DECLARE
    cap auth.capabilities%ROWTYPE;
    req gold.approvals%ROWTYPE;
    ev  bronze.events%ROWTYPE;
    who text;
    link text;
BEGIN
    IF p_token IS NULL THEN
        who := auth.local_principal(p_local_name);
    ELSE
        cap := auth.valid_capability(p_token);
        who := cap.principal;
    END IF;
    SELECT * INTO req FROM gold.approvals WHERE approval_id = p_approval_id FOR UPDATE;
    IF req.approval_id IS NULL OR (p_token IS NOT NULL AND NOT auth.allows(cap, 'admin', req.namespace)) THEN
        RAISE EXCEPTION 'no approval request % this caller can decide', p_approval_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF req.status <> 'pending' THEN
        RAISE EXCEPTION 'approval request % is already %', p_approval_id, req.status
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF req.requested_by = who OR (req.requested_by LIKE 'local:%' AND who LIKE 'local:%') THEN
        RAISE EXCEPTION 'the person who asked cannot approve their own request; another admin must, with their own token'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    link := CASE req.kind WHEN 'overlay_retract' THEN 'retracts' ELSE 'replaces' END;
    SELECT * INTO ev FROM bronze.events WHERE event_id = p_result_event_id;
    IF NOT FOUND OR ev.kind <> 'overlay' OR ev.namespace <> req.namespace
       OR (ev.metadata ->> link) IS DISTINCT FROM req.overlay_event_id::text
       OR (ev.metadata ->> 'approval_id') IS DISTINCT FROM req.approval_id::text
       OR ev.actor IS DISTINCT FROM (CASE WHEN who LIKE '%:%' THEN who ELSE 'user:' || who END)
       OR ev.received_at < req.requested_at THEN
        RAISE EXCEPTION 'event % does not carry out approval request %', p_result_event_id, p_approval_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    UPDATE gold.approvals SET status = 'approved', decided_by = who, decided_at = clock_timestamp(),
                              result_event_id = p_result_event_id
    WHERE approval_id = p_approval_id;
    RETURN who;
END
$$;

-- An overlay that would overwrite or retract a person's overlay without an approved request is
-- kept, not applied, and listed for review.
ALTER TABLE silver.overlays DROP CONSTRAINT overlays_status_check;
ALTER TABLE silver.overlays ADD CONSTRAINT overlays_status_check
    CHECK (status IN ('anchored', 'reanchored', 'unanchored', 'replaced', 'retracted', 'refused'));

REVOKE ALL ON auth.sessions FROM PUBLIC;
REVOKE ALL ON FUNCTION auth.session_grant(), auth.trusted_session(), auth.scope(), auth.enter(text),
    auth.admit_local(integer, text), auth.valid_capability(text), auth.local_principal(text),
    bronze.request_erasure(bigint, text, text, text), bronze.approve_erasure(bigint, text, text),
    gold.approve_overlay(bigint, bigint, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION auth.scope(), auth.session_grant(), auth.enter(text)
    TO medallion_tool, medallion_engine;
GRANT EXECUTE ON FUNCTION auth.admit_local(integer, text), bronze.request_erasure(bigint, text, text, text),
    bronze.approve_erasure(bigint, text, text), gold.approve_overlay(bigint, bigint, text, text)
    TO medallion_engine;
-- Only approve_overlay decides an approval; the engine files requests, which start pending.
REVOKE INSERT, UPDATE ON gold.approvals FROM medallion_engine;
GRANT INSERT (kind, namespace, fact_id, overlay_event_id, proposal, reason, requested_by) ON gold.approvals
    TO medallion_engine;

-- One pending erasure request per event, even for two requests filed at the same moment.
CREATE UNIQUE INDEX erasure_requests_one_pending ON bronze.erasure_requests (event_id) WHERE status = 'pending';

-- The tool login creates nothing, not even temporary functions a leaky predicate could use.
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, medallion_tool', current_database());
END
$$;
