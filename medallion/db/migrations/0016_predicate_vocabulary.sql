-- The open predicate vocabulary in use: one row per (namespace, predicate), curated or learned,
-- refreshed by the engine after each derivation of the namespace (silver/vocabulary_table.py).
-- Examples are statements, so rows are namespace-scoped like the facts they summarise.
SET LOCAL ROLE medallion_owner;

CREATE TABLE silver.predicates (
    namespace      text        NOT NULL,
    predicate      text        NOT NULL,
    cardinality    text        NOT NULL CHECK (cardinality IN ('one', 'many')),
    origin         text        NOT NULL CHECK (origin IN ('curated', 'learned')),
    aliases        text[]      NOT NULL DEFAULT '{}',
    first_seen     timestamptz NOT NULL,
    fact_count     bigint      NOT NULL,
    current_count  bigint      NOT NULL,
    examples       text[]      NOT NULL DEFAULT '{}',
    PRIMARY KEY (namespace, predicate)
);

GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON silver.predicates TO medallion_engine;
GRANT SELECT ON silver.predicates TO medallion_tool;
ALTER TABLE silver.predicates ENABLE ROW LEVEL SECURITY;
CREATE POLICY engine_all ON silver.predicates TO medallion_engine USING (true) WITH CHECK (true);
CREATE POLICY tool_namespaces ON silver.predicates FOR SELECT TO medallion_tool
    USING (namespace = ANY ((SELECT auth.scope())::text[]) OR '*' = ANY ((SELECT auth.scope())::text[]));
