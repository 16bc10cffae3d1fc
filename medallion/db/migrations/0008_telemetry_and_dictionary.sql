-- Tables the dbt issue needs beyond the engine's own: the retrieval telemetry the Gold tools append
-- to (SPEC G8; the usage models read it, empty until the tools write), and the data dictionary that
-- the dictionary asset loads from dbt's manifest and catalog (SPEC D2).
SET LOCAL ROLE medallion_owner;

CREATE TABLE telemetry.retrievals (
    retrieval_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    tool         text        NOT NULL,
    namespace    text,
    principal    text        NOT NULL,
    query        text,
    fact_ids     text[]      NOT NULL DEFAULT '{}',
    chunk_ids    text[]      NOT NULL DEFAULT '{}',
    hit          boolean     NOT NULL,
    latency_ms   real        NOT NULL DEFAULT 0,
    ok           boolean     NOT NULL DEFAULT true,
    error        text
);
CREATE INDEX retrievals_namespace_at ON telemetry.retrievals (namespace, at);
COMMENT ON TABLE telemetry.retrievals IS
    'One row per Gold tool call: what was asked, what came back (fact and chunk ids), whether it was allowed.';

CREATE TABLE gold.column_meta (
    layer           text        NOT NULL,
    relation        text        NOT NULL,
    column_name     text        NOT NULL,
    ordinal         integer     NOT NULL,
    data_type       text        NOT NULL,
    description     text        NOT NULL,
    domain          text,
    unit            text,
    source_system   text,
    semantics       text,
    retention_class text,
    relation_description text   NOT NULL,
    generated_at    timestamptz NOT NULL,
    PRIMARY KEY (relation, column_name)
);
COMMENT ON TABLE gold.column_meta IS
    'The data dictionary: one row per column of every documented relation, loaded from dbt docs (SPEC D2).';

GRANT SELECT, INSERT ON telemetry.retrievals TO medallion_engine, medallion_tool;
GRANT USAGE ON SCHEMA telemetry TO medallion_tool;
GRANT SELECT, INSERT, DELETE ON gold.column_meta TO medallion_engine;
GRANT SELECT ON gold.column_meta TO medallion_tool;
