-- Bronze: the immutable, append-only archive (SPEC B1-B7).
SET LOCAL ROLE medallion_owner;

CREATE TABLE bronze.events (
    event_id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Equivalent to ^[a-z0-9][a-z0-9_-]{0,62}$; bounded repetition is slow in PostgreSQL's regex engine.
    namespace        text        NOT NULL
        CHECK (length(namespace) <= 63 AND namespace ~ '^[a-z0-9][a-z0-9_-]*$'),
    source           text        NOT NULL CHECK (length(source) BETWEEN 1 AND 200),
    source_event_id  text        NOT NULL CHECK (length(source_event_id) BETWEEN 1 AND 500),
    kind             text        NOT NULL
        CHECK (kind IN ('transcript', 'note', 'commit', 'issue', 'document', 'fact', 'overlay')),
    actor            text,
    content          text        NOT NULL CHECK (length(content) > 0),
    content_hash     text        NOT NULL,
    occurred_at      timestamptz NOT NULL,
    received_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    provenance_root  text        NOT NULL CHECK (length(provenance_root) > 0),
    authority        smallint    NOT NULL CHECK (authority BETWEEN 1 AND 5),
    metadata         jsonb       NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(metadata) = 'object'),
    chain_hash       text        NOT NULL CHECK (length(chain_hash) = 64 AND chain_hash ~ '^[0-9a-f]+$'),
    CONSTRAINT events_natural_key UNIQUE (namespace, source, source_event_id),
    -- The stored hash is the hash of the stored content: a writer cannot lie about it (this also
    -- makes it 64 lowercase hex digits).
    CONSTRAINT events_content_hash_matches
        CHECK (content_hash = encode(sha256(convert_to(content, 'UTF8')), 'hex'))
);
CREATE INDEX events_namespace_order ON bronze.events (namespace, received_at, event_id);

COMMENT ON TABLE bronze.events IS
    'Every event an agent or a person emitted, verbatim. Append-only: UPDATE, DELETE and TRUNCATE are '
    'rejected by trigger; the only exit is an approved erasure (bronze.approve_erasure).';

-- Head of each namespace's hash chain; serialises chain assignment per namespace.
CREATE TABLE bronze.chain_heads (
    namespace    text PRIMARY KEY,
    event_count  bigint      NOT NULL CHECK (event_count >= 0),
    head_hash    text        NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Checkpoints written after each ingest batch: (namespace, count, head hash, at).
CREATE TABLE bronze.checkpoints (
    checkpoint_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    namespace     text        NOT NULL,
    event_count   bigint      NOT NULL CHECK (event_count >= 0),
    head_hash     text        NOT NULL,
    at            timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX checkpoints_namespace ON bronze.checkpoints (namespace, event_count);

-- Everything an entry point rejected, with the raw bytes and a reason; nothing is lost.
CREATE TABLE bronze.quarantine (
    quarantine_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    received_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    origin            text        NOT NULL,
    line_number       integer,
    byte_offset       bigint,
    namespace         text,
    source            text,
    source_event_id   text,
    error_code        text        NOT NULL,
    reason            text        NOT NULL CHECK (length(reason) > 0),
    raw               bytea       NOT NULL,
    conflict_event_id bigint
);
CREATE INDEX quarantine_namespace ON bronze.quarantine (namespace, received_at);

-- Erasure: request -> approve (another admin) -> delete with tombstone (SPEC B7).
CREATE TABLE bronze.erasure_requests (
    request_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        bigint      NOT NULL,
    namespace       text        NOT NULL,
    reason          text        NOT NULL CHECK (length(btrim(reason)) > 0),
    requested_by    text        NOT NULL CHECK (length(btrim(requested_by)) > 0),
    requested_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'executed')),
    approved_by     text,
    executed_at     timestamptz,
    CHECK (approved_by IS NULL OR approved_by <> requested_by)
);

CREATE TABLE bronze.tombstones (
    event_id         bigint PRIMARY KEY,
    namespace        text        NOT NULL,
    source           text        NOT NULL,
    source_event_id  text        NOT NULL,
    kind             text        NOT NULL,
    content_hash     text        NOT NULL,
    chain_hash       text        NOT NULL,
    occurred_at      timestamptz NOT NULL,
    received_at      timestamptz NOT NULL,
    request_id       bigint      NOT NULL REFERENCES bronze.erasure_requests (request_id),
    requested_by     text        NOT NULL,
    approved_by      text        NOT NULL,
    reason           text        NOT NULL,
    erased_at        timestamptz NOT NULL DEFAULT clock_timestamp()
);
COMMENT ON TABLE bronze.tombstones IS
    'What remains of an erased event: its key, hashes and who/when/why, never its content.';

-- Immutability (SPEC B4), enforced by the database for every role, the owner included.
CREATE FUNCTION bronze.reject_mutation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% on %.% is not allowed: Bronze is append-only (erasure needs an approved request)',
        TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE FUNCTION bronze.guard_event_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    approved bigint := nullif(current_setting('medallion.erasure_request', true), '')::bigint;
BEGIN
    IF approved IS NOT NULL AND EXISTS (
        SELECT 1 FROM bronze.erasure_requests r
        WHERE r.request_id = approved AND r.event_id = OLD.event_id
          AND r.approved_by IS NOT NULL AND r.status = 'pending'
    ) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'DELETE on bronze.events is not allowed: Bronze is append-only (erasure needs an approved request)'
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_no_update BEFORE UPDATE ON bronze.events
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON bronze.events
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();
CREATE TRIGGER events_guard_delete BEFORE DELETE ON bronze.events
    FOR EACH ROW EXECUTE FUNCTION bronze.guard_event_delete();

CREATE TRIGGER checkpoints_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON bronze.checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();
CREATE TRIGGER quarantine_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON bronze.quarantine
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();
CREATE TRIGGER tombstones_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON bronze.tombstones
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();

-- Grants: the engine appends and reads; it never updates, deletes or truncates.
REVOKE ALL ON ALL TABLES IN SCHEMA bronze FROM PUBLIC;
GRANT SELECT, INSERT ON bronze.events, bronze.checkpoints, bronze.quarantine TO medallion_engine;
GRANT SELECT, INSERT, UPDATE ON bronze.chain_heads TO medallion_engine;
GRANT SELECT ON bronze.erasure_requests, bronze.tombstones TO medallion_engine;
