-- Row hashes: every stored column of every Bronze event under a per-namespace hash chain (SPEC B6).
--
-- The chain in bronze.events.chain_hash covers only content_hash and the key, concatenated without
-- separators; Bronze rows cannot be updated, so existing rows cannot get a better chain_hash. This
-- table gives each event a second link that covers every column, with an unambiguous encoding:
--
--   erasable_hash = sha256(jsonb_build_array(actor, provenance_root, authority, metadata)::text)
--   row_digest    = sha256(jsonb_build_array(event_id, namespace, source, source_event_id, kind,
--                          content_hash, epoch(occurred_at), epoch(received_at), chain_hash,
--                          erasable_hash)::text)
--   row_hash      = sha256(previous row_hash of the namespace (64 zeros first) || row_digest)
--
-- All hashes are lowercase hex; sha256 is over the UTF-8 text. jsonb's text form is canonical for a
-- value (JSON string escaping, object keys in jsonb order, numbers as stored), so no two different
-- rows share an encoding; timestamps are seconds since the Unix epoch with six decimals, which
-- depends on neither TimeZone nor DateStyle. Content is covered through content_hash, which the
-- CHECK constraint and the verifier compare with the content. The columns an erasure removes are
-- folded into erasable_hash, which is stored, so an erased event's link is still recomputed from
-- its tombstone. dagster_project/bronze/integrity.py recomputes the same expressions in its own
-- query (not through these functions) and walks the chain in event_id order.
--
-- A statement-level AFTER INSERT trigger records the hashes of every inserted event, whoever inserts
-- it; it runs as the owner, so the engine needs no write grant here. The table is append-only like
-- bronze.events. Existing events and tombstones are backfilled below (a tombstone no longer has the
-- erasable columns: its erasable_hash is NULL).
SET LOCAL ROLE medallion_owner;

-- Keyed by (namespace, event_id), the order the chain is walked in: the only index the ingest path
-- maintains here. An entry under the wrong namespace is an orphan there, which the verifier reports.
CREATE TABLE bronze.row_hashes (
    namespace      text        NOT NULL,
    event_id       bigint      NOT NULL,
    erasable_hash  text        CHECK (length(erasable_hash) = 64),
    row_hash       text        NOT NULL CHECK (length(row_hash) = 64),
    recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, event_id)
);

COMMENT ON TABLE bronze.row_hashes IS
    'One link per Bronze event (erased ones included) in a per-namespace chain covering every stored column; '
    'written by trigger on insert, append-only.';
COMMENT ON COLUMN bronze.row_hashes.event_id IS 'The event (bronze.events or, once erased, bronze.tombstones).';
COMMENT ON COLUMN bronze.row_hashes.namespace IS 'The namespace whose row-hash chain the link belongs to.';
COMMENT ON COLUMN bronze.row_hashes.erasable_hash IS
    'sha256 of actor, provenance_root, authority and metadata (the columns an erasure removes); NULL for '
    'events already erased when row hashes were introduced.';
COMMENT ON COLUMN bronze.row_hashes.row_hash IS
    'sha256 of the previous link of the namespace and the digest of every column of the event.';
COMMENT ON COLUMN bronze.row_hashes.recorded_at IS 'Server clock when the link was written.';

CREATE FUNCTION bronze.erasable_digest(actor text, provenance_root text, authority smallint, metadata jsonb)
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT encode(sha256(convert_to(jsonb_build_array(actor, provenance_root, authority, metadata)::text, 'UTF8')),
                  'hex')
$$;

CREATE FUNCTION bronze.row_digest(event_id bigint, namespace text, source text, source_event_id text, kind text,
                                  content_hash text, occurred_at timestamptz, received_at timestamptz,
                                  chain_hash text, erasable_hash text)
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT encode(sha256(convert_to(jsonb_build_array(
        event_id, namespace, source, source_event_id, kind, content_hash,
        extract(epoch FROM occurred_at)::text, extract(epoch FROM received_at)::text,
        chain_hash, erasable_hash)::text, 'UTF8')), 'hex')
$$;

-- Chains the given digests (in event_id order) after the namespace's last link and stores them.
-- Takes the advisory lock ingest takes per namespace (class "bron"), so concurrent writers of one
-- namespace never link from the same predecessor; ingest already holds it, so this never waits there.
CREATE FUNCTION bronze.append_row_hashes(p_namespace text, p_event_ids bigint[], p_erasable text[],
                                         p_digests text[])
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, bronze AS $$
DECLARE
    prev text;
    hashes text[] := '{}';
BEGIN
    PERFORM pg_advisory_xact_lock(1651666798, hashtext(p_namespace));
    SELECT h.row_hash INTO prev FROM bronze.row_hashes h
    WHERE h.namespace = p_namespace ORDER BY h.event_id DESC LIMIT 1;
    prev := coalesce(prev, repeat('0', 64));
    FOR i IN 1 .. coalesce(cardinality(p_digests), 0) LOOP
        prev := encode(sha256(convert_to(prev || p_digests[i], 'UTF8')), 'hex');
        hashes[i] := prev;
    END LOOP;
    INSERT INTO bronze.row_hashes (event_id, namespace, erasable_hash, row_hash)
    SELECT u.event_id, p_namespace, u.erasable_hash, u.row_hash
    FROM unnest(p_event_ids, p_erasable, hashes) AS u (event_id, erasable_hash, row_hash);
END
$$;

-- One pass over the statement's new rows, grouped by namespace; namespaces are locked in code-point
-- order, the order ingest locks them in.
CREATE FUNCTION bronze.record_row_hashes() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, bronze AS $$
DECLARE
    batch record;
BEGIN
    FOR batch IN
        SELECT s.namespace,
               array_agg(s.event_id ORDER BY s.event_id) AS event_ids,
               array_agg(s.erasable ORDER BY s.event_id) AS erasable,
               array_agg(bronze.row_digest(s.event_id, s.namespace, s.source, s.source_event_id, s.kind,
                                           s.content_hash, s.occurred_at, s.received_at, s.chain_hash, s.erasable)
                         ORDER BY s.event_id) AS digests
        FROM (SELECT n.*, bronze.erasable_digest(n.actor, n.provenance_root, n.authority, n.metadata) AS erasable
              FROM new_rows n) s
        GROUP BY s.namespace
        ORDER BY s.namespace COLLATE "C"
    LOOP
        PERFORM bronze.append_row_hashes(batch.namespace, batch.event_ids, batch.erasable, batch.digests);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_record_row_hashes AFTER INSERT ON bronze.events
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.record_row_hashes();

CREATE TRIGGER row_hashes_immutable BEFORE UPDATE OR DELETE OR TRUNCATE ON bronze.row_hashes
    FOR EACH STATEMENT EXECUTE FUNCTION bronze.reject_mutation();

-- Backfill: every live event and every tombstone, per namespace in event_id order, in slices of
-- 50,000 events (each slice links from the one before it) so that memory stays bounded.
DO $$
DECLARE
    batch record;
BEGIN
    FOR batch IN
        SELECT s.namespace,
               array_agg(s.event_id ORDER BY s.event_id) AS event_ids,
               array_agg(s.erasable ORDER BY s.event_id) AS erasable,
               array_agg(bronze.row_digest(s.event_id, s.namespace, s.source, s.source_event_id, s.kind,
                                           s.content_hash, s.occurred_at, s.received_at, s.chain_hash, s.erasable)
                         ORDER BY s.event_id) AS digests
        FROM (SELECT u.*, (row_number() OVER (PARTITION BY u.namespace ORDER BY u.event_id) - 1) / 50000 AS slice
              FROM (SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.content_hash,
                           e.occurred_at, e.received_at, e.chain_hash,
                           bronze.erasable_digest(e.actor, e.provenance_root, e.authority, e.metadata) AS erasable
                    FROM bronze.events e
                    UNION ALL
                    SELECT t.event_id, t.namespace, t.source, t.source_event_id, t.kind, t.content_hash,
                           t.occurred_at, t.received_at, t.chain_hash, NULL
                    FROM bronze.tombstones t) u) s
        GROUP BY s.namespace, s.slice
        ORDER BY s.namespace COLLATE "C", s.slice
    LOOP
        PERFORM bronze.append_row_hashes(batch.namespace, batch.event_ids, batch.erasable, batch.digests);
    END LOOP;
END
$$;

REVOKE ALL ON bronze.row_hashes FROM PUBLIC;
GRANT SELECT ON bronze.row_hashes TO medallion_engine;
REVOKE ALL ON FUNCTION bronze.erasable_digest(text, text, smallint, jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.row_digest(bigint, text, text, text, text, text, timestamptz, timestamptz, text, text)
    FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.append_row_hashes(text, bigint[], text[], text[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION bronze.record_row_hashes() FROM PUBLIC;
