-- Erasure of every event of one actor, or of a whole namespace, in one request and one approval.
--
-- A scoped request is a row of bronze.erasure_requests without an event (event_id NULL) and with a
-- row in bronze.erasure_scopes: the namespace is the request's, the actor (NULL: every event of the
-- namespace) the scope's. It covers the events that match when it is approved, each of which leaves
-- a tombstone that names the request. The checks are those of a single event's erasure, in the
-- database: the requester and the approver are verified here (a token's principal, or the
-- administrative login's local:<user>), both need admin in the namespace, and they are two people.
SET LOCAL ROLE medallion_owner;

ALTER TABLE bronze.erasure_requests ALTER COLUMN event_id DROP NOT NULL;

CREATE TABLE bronze.erasure_scopes (
    request_id        bigint PRIMARY KEY REFERENCES bronze.erasure_requests (request_id),
    actor             text CHECK (actor IS NULL OR length(btrim(actor)) > 0),
    events_requested  bigint NOT NULL CHECK (events_requested > 0),
    events_erased     bigint CHECK (events_erased >= 0)
);
COMMENT ON TABLE bronze.erasure_scopes IS
    'The scope of an erasure request that names no single event: every event of actor in the request''s '
    'namespace, or (actor NULL) every event of the namespace; how many matched when it was requested and '
    'how many its approval erased.';

CREATE TRIGGER erasure_scopes_immutable BEFORE DELETE OR TRUNCATE ON bronze.erasure_scopes
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();

-- Who is acting on an erasure: the principal of a verified token that holds admin in p_namespace, or
-- the administrative login as p_local_name. A token outside the namespace is told nothing about it.
CREATE FUNCTION bronze.erasure_actor(p_namespace text, p_token text, p_local_name text, p_refusal text)
RETURNS text LANGUAGE plpgsql STABLE SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    cap auth.capabilities%ROWTYPE;
BEGIN
    IF p_token IS NULL THEN
        RETURN auth.local_principal(p_local_name);
    END IF;
    cap := auth.valid_capability(p_token);
    IF NOT coalesce(auth.allows(cap, 'admin', p_namespace), false) THEN
        RAISE EXCEPTION '%', p_refusal USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN cap.principal;
END
$$;

-- p_actor NULL: every event of the namespace. Refused with one sentence when nothing matches.
CREATE FUNCTION bronze.request_erasure_scope(p_namespace text, p_actor text, p_reason text, p_token text,
                                             p_local_name text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    who     text;
    matched bigint;
    pending bigint;
    rid     bigint;
    what    text := CASE WHEN p_actor IS NULL THEN format('every event of namespace %s', p_namespace)
                         ELSE format('every event of actor %s in namespace %s', p_actor, p_namespace) END;
BEGIN
    who := bronze.erasure_actor(p_namespace, p_token, p_local_name,
        format('no events this capability may erase in namespace %s (erasure needs admin there)', p_namespace));
    IF p_actor IS NOT NULL AND length(btrim(p_actor)) = 0 THEN
        RAISE EXCEPTION 'the actor to erase is blank: name one, e.g. user:alice' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- One pending request per scope: a concurrent identical request waits here, then sees this one.
    PERFORM pg_advisory_xact_lock(hashtext('bronze.erasure_scope'), hashtext(p_namespace));
    SELECT r.request_id INTO pending FROM bronze.erasure_requests r JOIN bronze.erasure_scopes s USING (request_id)
    WHERE r.namespace = p_namespace AND r.status = 'pending' AND s.actor IS NOT DISTINCT FROM p_actor;
    IF pending IS NOT NULL THEN
        RAISE EXCEPTION 'an erasure of % is already pending approval (request %)', what, pending
            USING ERRCODE = 'unique_violation';
    END IF;
    SELECT count(*) INTO matched FROM bronze.events e
    WHERE e.namespace = p_namespace AND (p_actor IS NULL OR e.actor = p_actor);
    IF matched = 0 THEN
        RAISE EXCEPTION '%', CASE WHEN p_actor IS NULL
            THEN format('namespace %s has no events to erase', p_namespace)
            ELSE format('actor %s has no events in namespace %s to erase (the actor is matched exactly, '
                        'e.g. user:alice)', p_actor, p_namespace) END
            USING ERRCODE = 'no_data_found';
    END IF;
    INSERT INTO bronze.erasure_requests (event_id, namespace, reason, requested_by)
    VALUES (NULL, p_namespace, p_reason, who)
    RETURNING request_id INTO rid;
    INSERT INTO bronze.erasure_scopes (request_id, actor, events_requested) VALUES (rid, p_actor, matched);
    RETURN rid;
END
$$;

-- The approver of request p_request_id (locked for the transaction), after every check a single
-- event's approval makes: a valid identity with admin in the namespace, a pending request, and a
-- different person from the requester.
CREATE FUNCTION bronze.erasure_approver(p_request_id bigint, p_token text, p_local_name text)
RETURNS text LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    req bronze.erasure_requests%ROWTYPE;
    who text;
BEGIN
    SELECT * INTO req FROM bronze.erasure_requests WHERE request_id = p_request_id FOR UPDATE;
    who := bronze.erasure_actor(req.namespace, p_token, p_local_name,
        format('no erasure request %s this capability may approve (it needs admin in the namespace)', p_request_id));
    IF req.request_id IS NULL THEN
        RAISE EXCEPTION 'erasure request % does not exist', p_request_id USING ERRCODE = 'no_data_found';
    END IF;
    IF req.status <> 'pending' THEN
        RAISE EXCEPTION 'erasure request % was already executed', p_request_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF req.requested_by = who OR (req.requested_by LIKE 'local:%' AND who LIKE 'local:%') THEN
        RAISE EXCEPTION 'the requester (%) cannot approve their own erasure: another admin must, with their own token',
            req.requested_by USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN who;
END
$$;

-- Approve and execute a scoped request: a tombstone for each matching event, then the events go.
-- Returns how many were erased (0 when an earlier erasure already took them; the request is closed).
CREATE FUNCTION bronze.approve_erasure_scope(p_request_id bigint, p_token text, p_local_name text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    who   text := bronze.erasure_approver(p_request_id, p_token, p_local_name);
    req   bronze.erasure_requests%ROWTYPE;
    scope bronze.erasure_scopes%ROWTYPE;
    gone  bigint;
BEGIN
    SELECT * INTO req FROM bronze.erasure_requests WHERE request_id = p_request_id;
    SELECT * INTO scope FROM bronze.erasure_scopes WHERE request_id = p_request_id;
    IF scope.request_id IS NULL THEN
        RAISE EXCEPTION 'erasure request % names one event: approve it with bronze.approve_erasure', p_request_id
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- An event that lands while this runs is not tombstoned, so the DELETE leaves it (it checks the tombstone).
    UPDATE bronze.erasure_requests SET approved_by = who WHERE request_id = p_request_id;
    INSERT INTO bronze.tombstones (event_id, namespace, source, source_event_id, kind, content_hash,
                                   chain_hash, occurred_at, received_at, request_id, requested_by,
                                   approved_by, reason)
    SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.content_hash, e.chain_hash,
           e.occurred_at, e.received_at, req.request_id, req.requested_by, who, req.reason
    FROM bronze.events e
    WHERE e.namespace = req.namespace AND (scope.actor IS NULL OR e.actor = scope.actor)
    ORDER BY e.event_id
    FOR UPDATE;
    PERFORM set_config('medallion.erasure_request', p_request_id::text, true);
    DELETE FROM bronze.events e
    WHERE e.namespace = req.namespace AND (scope.actor IS NULL OR e.actor = scope.actor)
      AND EXISTS (SELECT 1 FROM bronze.tombstones t WHERE t.event_id = e.event_id AND t.request_id = p_request_id);
    GET DIAGNOSTICS gone = ROW_COUNT;
    PERFORM set_config('medallion.erasure_request', '', true);
    UPDATE bronze.erasure_scopes SET events_erased = gone WHERE request_id = p_request_id;
    UPDATE bronze.erasure_requests SET status = 'executed', executed_at = clock_timestamp()
    WHERE request_id = p_request_id;
    RETURN gone;
END
$$;

-- A single event's approval, as before, with its checks in bronze.erasure_approver; a scoped request
-- is pointed to bronze.approve_erasure_scope.
CREATE OR REPLACE FUNCTION bronze.approve_erasure(p_request_id bigint, p_token text, p_local_name text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze, auth AS $$
DECLARE
    who text := bronze.erasure_approver(p_request_id, p_token, p_local_name);
    req bronze.erasure_requests%ROWTYPE;
    ev  bronze.events%ROWTYPE;
BEGIN
    SELECT * INTO req FROM bronze.erasure_requests WHERE request_id = p_request_id;
    IF req.event_id IS NULL THEN
        RAISE EXCEPTION 'erasure request % covers a scope, not one event: approve it with bronze.approve_erasure_scope',
            p_request_id USING ERRCODE = 'invalid_parameter_value';
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

-- A row leaves bronze.events only inside an approval: the request being executed names it, or names
-- a scope it belongs to and has tombstoned it.
CREATE OR REPLACE FUNCTION bronze.guard_event_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    approved bigint := nullif(current_setting('medallion.erasure_request', true), '')::bigint;
BEGIN
    IF approved IS NOT NULL AND EXISTS (
        SELECT 1 FROM bronze.erasure_requests r
        WHERE r.request_id = approved AND r.approved_by IS NOT NULL AND r.status = 'pending'
          AND (r.event_id = OLD.event_id
               OR (r.event_id IS NULL AND r.namespace = OLD.namespace
                   AND EXISTS (SELECT 1 FROM bronze.tombstones t
                               WHERE t.event_id = OLD.event_id AND t.request_id = approved)))
    ) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'DELETE on bronze.events is not allowed: Bronze is append-only (erasure needs an approved request)'
        USING ERRCODE = 'insufficient_privilege';
END
$$;

REVOKE ALL ON bronze.erasure_scopes FROM PUBLIC;
GRANT SELECT ON bronze.erasure_scopes TO medallion_engine;
REVOKE ALL ON FUNCTION bronze.erasure_actor(text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.erasure_approver(bigint, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.request_erasure_scope(text, text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.approve_erasure_scope(bigint, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION bronze.request_erasure_scope(text, text, text, text, text) TO medallion_engine;
GRANT EXECUTE ON FUNCTION bronze.approve_erasure_scope(bigint, text, text) TO medallion_engine;
