-- The second person of an approval, and every row a caller writes, verified in the database.
--
-- * A principal that an admin minted is not a second person. A capability records who minted it
--   (created_by: the minting capability's id, or the local admin's local:<user>). auth.lineage walks
--   that chain; an overlay approval is refused when the approver's principal minted the requester's
--   capability, directly or through a chain (or the other way round). The local admin is the root of
--   every chain and is not part of it: it names the people (only it grants admin to another
--   principal), and a rule the database enforces cannot bind the database's superuser anyway.
-- * Overlay requests are filed by gold.request_overlay_change, which verifies the requester like the
--   erasure functions do (a valid token with overlay in the overlay's namespace, or the
--   administrative login as local:<user>) and records the requesting capability in
--   auth.approval_requesters. The engine login no longer inserts into gold.approvals.
-- * A tool backend appends telemetry only under the grant it entered with: the row names that
--   capability (the local admin: local:<user>), a namespace of the grant or, for a refused call
--   alone, the one it asked for, and keeps at most 2,000 characters of query and error.
-- * A principal is one word without spaces or control characters, and never the local admin's
--   (local:, in any case); checked for new capabilities (existing rows are left as they are).
SET LOCAL ROLE medallion_owner;

ALTER TABLE auth.capabilities ADD CONSTRAINT capabilities_principal_shape
    CHECK (principal ~ '^[^[:space:][:cntrl:]]{1,200}$' AND lower(principal) NOT LIKE 'local:%') NOT VALID;

CREATE TABLE auth.approval_requesters (
    approval_id    bigint PRIMARY KEY REFERENCES gold.approvals (approval_id),
    capability_id  text   NOT NULL REFERENCES auth.capabilities (capability_id)
);
COMMENT ON TABLE auth.approval_requesters IS
    'The capability each overlay request was filed with, verified by gold.request_overlay_change; '
    'a request of the local admin has no row.';
REVOKE ALL ON auth.approval_requesters FROM PUBLIC;

-- The principals of a capability and of every capability that minted it, directly or through a chain.
-- The chain ends at a created_by that names no capability (the local admin, or a test's label).
CREATE FUNCTION auth.lineage(p_capability_id text) RETURNS text[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
    WITH RECURSIVE chain AS (
        SELECT c.capability_id, c.principal, c.created_by FROM auth.capabilities c
        WHERE c.capability_id = p_capability_id
        UNION
        SELECT c.capability_id, c.principal, c.created_by FROM auth.capabilities c
        JOIN chain ON c.capability_id = chain.created_by
    )
    SELECT coalesce(array_agg(DISTINCT chain.principal), ARRAY[]::text[]) FROM chain
$$;
COMMENT ON FUNCTION auth.lineage(text) IS
    'Principals of a capability and of the capabilities that minted it, directly or through a chain.';

-- Why the approver (p_approver, acting with p_approver_cap; NULL for the local admin) is not a second
-- person to the requester, or NULL when they are two people.
CREATE FUNCTION auth.second_person_problem(p_requested_by text, p_requested_cap text, p_approver text,
                                           p_approver_cap text)
RETURNS text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
    SELECT CASE
        WHEN p_requested_by = p_approver OR (p_requested_by LIKE 'local:%' AND p_approver LIKE 'local:%') THEN
            'the person who asked cannot approve their own request; another admin must, with their own token'
        WHEN p_approver = ANY (auth.lineage(p_requested_cap)) THEN
            format('the request was filed with a capability that %s minted (directly or through a chain), and '
                   'a principal one admin minted is not a second person: another admin must approve', p_approver)
        WHEN p_requested_by = ANY (auth.lineage(p_approver_cap)) THEN
            format('the approving capability was minted by %s, who asked (directly or through a chain): '
                   'another admin must approve', p_requested_by)
    END
$$;

-- A request to overwrite (p_kind 'overlay_overwrite') or retract ('overlay_retract') a person's
-- overlay, filed by a verified requester: a token with overlay in the overlay's namespace, or the
-- administrative login as p_local_name. A token outside the namespace learns nothing about it.
CREATE FUNCTION gold.request_overlay_change(p_kind text, p_overlay_event_id bigint, p_fact_id text, p_proposal jsonb,
                                            p_reason text, p_token text, p_local_name text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, gold, bronze, auth AS $$
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
    SELECT e.namespace INTO ns FROM bronze.events e WHERE e.event_id = p_overlay_event_id AND e.kind = 'overlay';
    IF ns IS NULL OR (p_token IS NOT NULL AND NOT auth.allows(cap, 'overlay', ns)) THEN
        RAISE EXCEPTION 'no overlay % this caller may ask to change (it needs overlay in the overlay''s namespace)',
            p_overlay_event_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO gold.approvals (kind, namespace, fact_id, overlay_event_id, proposal, reason, requested_by)
    VALUES (p_kind, ns, p_fact_id, p_overlay_event_id, p_proposal, p_reason, who)
    RETURNING approval_id INTO rid;
    IF p_token IS NOT NULL THEN
        INSERT INTO auth.approval_requesters (approval_id, capability_id) VALUES (rid, cap.capability_id);
    END IF;
    RETURN rid;
END
$$;

-- The decision, as in migration 0014, with the second person checked by auth.second_person_problem.
CREATE OR REPLACE FUNCTION gold.approve_overlay(p_approval_id bigint, p_result_event_id bigint, p_token text,
                                                p_local_name text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, gold, bronze, auth AS $$
DECLARE
    cap auth.capabilities%ROWTYPE;
    req gold.approvals%ROWTYPE;
    ev  bronze.events%ROWTYPE;
    who text;
    link text;
    problem text;
    asker text;
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
    SELECT r.capability_id INTO asker FROM auth.approval_requesters r WHERE r.approval_id = p_approval_id;
    IF asker IS NULL AND req.requested_by NOT LIKE 'local:%' THEN
        RAISE EXCEPTION 'approval request % was filed before requesters were verified; file it again', p_approval_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    problem := auth.second_person_problem(req.requested_by, asker, who, cap.capability_id);
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION '%', problem USING ERRCODE = 'insufficient_privilege';
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

-- Only gold.request_overlay_change files a request.
REVOKE INSERT ON gold.approvals FROM medallion_engine;
REVOKE INSERT (kind, namespace, fact_id, overlay_event_id, proposal, reason, requested_by) ON gold.approvals
    FROM medallion_engine;

-- The identity a tool backend entered with (its capability, or local:<user>) and the namespaces of
-- that grant. Unlike auth.session_grant it ignores a later revocation: a refused call of a revoked
-- token is still logged under the capability that made it.
CREATE FUNCTION auth.session_writer(OUT principal text, OUT namespaces text[])
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
    SELECT coalesce(s.capability_id, s.principal), s.namespaces
    FROM auth.sessions s
    WHERE s.pid = pg_backend_pid() AND s.nonce = coalesce(current_setting('medallion.session', true), '')
$$;

DROP POLICY tool_append ON telemetry.retrievals;
CREATE POLICY tool_append ON telemetry.retrievals FOR INSERT TO medallion_tool
    WITH CHECK (
        principal = (SELECT w.principal FROM auth.session_writer() w)
        AND (namespace IS NULL
             OR (SELECT namespace = ANY (w.namespaces) OR '*' = ANY (w.namespaces) FROM auth.session_writer() w)
             OR (NOT ok AND NOT hit AND cardinality(fact_ids) = 0 AND cardinality(chunk_ids) = 0))
        AND coalesce(length(query), 0) <= 2000
        AND coalesce(length(error), 0) <= 2000);

REVOKE ALL ON FUNCTION auth.lineage(text), auth.second_person_problem(text, text, text, text),
    gold.request_overlay_change(text, bigint, text, jsonb, text, text, text), auth.session_writer() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION gold.request_overlay_change(text, bigint, text, jsonb, text, text, text) TO medallion_engine;
GRANT EXECUTE ON FUNCTION auth.session_writer() TO medallion_tool;
