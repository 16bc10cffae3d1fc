-- Silver: derived, engine-owned (SPEC section 4). Only the engine writes here; everything but the
-- derivation cache is dropped and re-derived from Bronze by a full rebuild.
SET LOCAL ROLE medallion_owner;

CREATE TABLE silver.entities (
    entity_id        text PRIMARY KEY,               -- hash of (namespace, normalized name)
    namespace        text        NOT NULL,
    canonical_name   text        NOT NULL,
    normalized_name  text        NOT NULL,
    aliases          text[]      NOT NULL DEFAULT '{}',
    entity_type      text        NOT NULL DEFAULT 'thing',
    first_event_id   bigint      NOT NULL,
    UNIQUE (namespace, normalized_name)
);
CREATE INDEX entities_aliases ON silver.entities USING gin (aliases);

CREATE TABLE silver.facts (
    fact_id          text PRIMARY KEY,               -- hash of namespace, subject, predicate, value, event
    namespace        text        NOT NULL,
    subject_id       text        NOT NULL REFERENCES silver.entities (entity_id),
    predicate        text        NOT NULL,
    cardinality      text        NOT NULL CHECK (cardinality IN ('one', 'many')),
    value            jsonb       NOT NULL,
    value_text       text        NOT NULL,
    statement        text        NOT NULL CHECK (length(statement) > 0),
    valid_from       timestamptz NOT NULL,
    valid_to         timestamptz,
    recorded_at      timestamptz NOT NULL,
    superseded_at    timestamptz,
    verified_at      timestamptz NOT NULL,
    source           text        NOT NULL,
    authority        smallint    NOT NULL CHECK (authority BETWEEN 1 AND 5),
    confidence       real        NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    contested        boolean     NOT NULL DEFAULT false,
    superseded_by    text,
    half_life        interval    NOT NULL,
    importance       real        NOT NULL CHECK (importance BETWEEN 0 AND 1),
    retention_class  text        NOT NULL,
    bronze_event_id  bigint      NOT NULL,
    provenance_root  text        NOT NULL CHECK (length(provenance_root) > 0),
    object_entity_id text        REFERENCES silver.entities (entity_id),
    chunk_id         text,
    span_start       integer,
    span_end         integer,
    fingerprint      text        NOT NULL,
    embedding        vector(384),
    CONSTRAINT facts_interval_well_formed CHECK (valid_to IS NULL OR valid_to >= valid_from),
    CONSTRAINT facts_transaction_well_formed CHECK (superseded_at IS NULL OR superseded_at >= recorded_at),
    CONSTRAINT facts_closed_together CHECK ((valid_to IS NULL) = (superseded_at IS NULL))
);
-- At most one open version per single-valued slot, unless the pair is contested (SPEC S4/S5).
CREATE UNIQUE INDEX facts_one_open_version_per_slot ON silver.facts (namespace, subject_id, predicate)
    WHERE cardinality = 'one' AND valid_to IS NULL AND NOT contested;
CREATE INDEX facts_slot ON silver.facts (namespace, subject_id, predicate, valid_from);
CREATE INDEX facts_event ON silver.facts (bronze_event_id);
CREATE INDEX facts_embedding ON silver.facts USING hnsw (embedding vector_cosine_ops);
CREATE INDEX facts_fts ON silver.facts USING gin (to_tsvector('english', statement));

CREATE TABLE silver.edges (
    fact_id          text PRIMARY KEY REFERENCES silver.facts (fact_id),
    namespace        text NOT NULL,
    subject_id       text NOT NULL REFERENCES silver.entities (entity_id),
    object_id        text NOT NULL REFERENCES silver.entities (entity_id),
    predicate        text NOT NULL
);
CREATE INDEX edges_subject ON silver.edges (namespace, subject_id);
CREATE INDEX edges_object ON silver.edges (namespace, object_id);

-- Every decision about every candidate: the audit trail of belief changes (SPEC S3).
CREATE TABLE silver.resolutions (
    bronze_event_id   bigint      NOT NULL,
    candidate_index   integer     NOT NULL,
    namespace         text        NOT NULL,
    candidate_fact_id text        NOT NULL,
    decision          text        NOT NULL CHECK (decision IN ('add', 'update', 'supersede', 'skip')),
    outcome           text        NOT NULL,
    target_fact_id    text,
    neighbours        jsonb       NOT NULL DEFAULT '[]'::jsonb,
    reason            text        NOT NULL,
    judge             text        NOT NULL,
    fingerprint       text        NOT NULL,
    decided_at        timestamptz NOT NULL,
    PRIMARY KEY (bronze_event_id, candidate_index)
);
CREATE INDEX resolutions_namespace ON silver.resolutions (namespace, decided_at);

-- Which Bronze event was derived under which fingerprint (incremental runs skip these).
CREATE TABLE silver.derivations (
    bronze_event_id bigint PRIMARY KEY,
    namespace       text        NOT NULL,
    fingerprint     text        NOT NULL,
    facts           integer     NOT NULL DEFAULT 0,
    outcome         text        NOT NULL,
    derived_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Events whose derivation failed (LLM faults): retried by the next run, never lost.
CREATE TABLE silver.derivation_failures (
    bronze_event_id bigint      NOT NULL,
    step            text        NOT NULL,
    namespace       text        NOT NULL,
    fingerprint     text        NOT NULL,
    reason          text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 1,
    last_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (bronze_event_id, step)
);

-- Memoised model outputs: kept across rebuilds so a warm rebuild calls no model (SPEC S2).
CREATE TABLE silver.derivation_cache (
    fingerprint  text        NOT NULL,
    input_hash   text        NOT NULL,
    output       jsonb,
    embedding    vector(384),
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (fingerprint, input_hash)
);

CREATE TABLE silver.chunks (
    chunk_id        text PRIMARY KEY,
    namespace       text        NOT NULL,
    bronze_event_id bigint      NOT NULL,
    char_start      integer     NOT NULL,
    char_end        integer     NOT NULL CHECK (char_end > char_start),
    text            text        NOT NULL,
    tsv             tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    occurred_at     timestamptz NOT NULL,
    provenance_root text        NOT NULL,
    fingerprint     text        NOT NULL,
    embedding       vector(384)
);
CREATE INDEX chunks_event ON silver.chunks (bronze_event_id);
CREATE INDEX chunks_namespace ON silver.chunks (namespace);
CREATE INDEX chunks_embedding ON silver.chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX chunks_tsv ON silver.chunks USING gin (tsv);

CREATE TABLE silver.documents (
    namespace       text        NOT NULL,
    path            text        NOT NULL,
    version_hash    text        NOT NULL,
    parent_hash     text,
    is_head         boolean     NOT NULL DEFAULT false,
    bronze_event_id bigint      NOT NULL,
    recorded_at     timestamptz NOT NULL,
    fingerprint     text        NOT NULL,
    PRIMARY KEY (namespace, path, version_hash)
);
CREATE UNIQUE INDEX documents_one_head ON silver.documents (namespace, path) WHERE is_head;

CREATE TABLE silver.working_memory (
    item_id         text PRIMARY KEY,
    namespace       text        NOT NULL,
    subject         text        NOT NULL,
    predicate       text        NOT NULL,
    value           jsonb       NOT NULL,
    statement       text        NOT NULL,
    bronze_event_id bigint      NOT NULL,
    provenance_root text        NOT NULL,
    recorded_at     timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    fingerprint     text        NOT NULL
);

CREATE TABLE telemetry.model_calls (
    call_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    step           text        NOT NULL,
    provider       text        NOT NULL,
    model          text        NOT NULL,
    namespace      text,
    input_tokens   integer     NOT NULL DEFAULT 0,
    output_tokens  integer     NOT NULL DEFAULT 0,
    latency_ms     real        NOT NULL DEFAULT 0,
    cache_hit      boolean     NOT NULL,
    ok             boolean     NOT NULL DEFAULT true,
    error          text
);

-- Bitemporal access (SPEC S6). A row is believed at transaction time T when it was recorded by T and
-- not superseded by T; its valid_to is known at T only when the supersession was recorded by T.
CREATE FUNCTION silver.facts_as_of(p_namespace text, p_valid_at timestamptz, p_recorded_at timestamptz)
RETURNS SETOF silver.facts LANGUAGE sql STABLE AS $$
    SELECT f.* FROM silver.facts f
    WHERE f.namespace = p_namespace
      AND f.recorded_at <= p_recorded_at
      AND (f.superseded_at IS NULL OR f.superseded_at > p_recorded_at
           OR f.valid_to > p_valid_at)
      AND f.valid_from <= p_valid_at
$$;

CREATE FUNCTION silver.current_facts(p_namespace text)
RETURNS SETOF silver.facts LANGUAGE sql STABLE AS $$
    SELECT f.* FROM silver.facts f WHERE f.namespace = p_namespace AND f.valid_to IS NULL
$$;

CREATE FUNCTION silver.fact_history(p_namespace text, p_subject_id text, p_predicate text)
RETURNS SETOF silver.facts LANGUAGE sql STABLE AS $$
    SELECT f.* FROM silver.facts f
    WHERE f.namespace = p_namespace AND f.subject_id = p_subject_id AND f.predicate = p_predicate
    ORDER BY f.valid_from, f.recorded_at, f.fact_id
$$;

GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA silver TO medallion_engine;
GRANT SELECT, INSERT ON telemetry.model_calls TO medallion_engine;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA silver TO medallion_engine;
