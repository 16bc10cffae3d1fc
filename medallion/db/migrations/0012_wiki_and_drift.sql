-- The compiled wiki's page registry (SPEC G10) and the drift report (SPEC A1).
SET LOCAL ROLE medallion_owner;

CREATE TABLE gold.wiki_pages (
    namespace     text        NOT NULL,
    path          text        NOT NULL,
    kind          text        NOT NULL CHECK (kind IN ('entity', 'concept')),
    title         text        NOT NULL,
    content_hash  text        NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
    fact_ids      text[]      NOT NULL DEFAULT '{}',
    ledger_hash   text        NOT NULL,
    rendered_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, path)
);
COMMENT ON TABLE gold.wiki_pages IS
    'Every compiled wiki page with the sha256 of its content, so the drift audit can tell a hand edit.';

CREATE TABLE gold.drift_report (
    run_id      text        NOT NULL,
    at          timestamptz NOT NULL,
    check_name  text        NOT NULL CHECK (check_name IN ('bronze_chain', 'bronze_checkpoint', 'silver_coverage',
                                                           'orphan_silver', 'projection_hash', 'hindsight', 'stale')),
    severity    text        NOT NULL CHECK (severity IN ('error', 'warning', 'info')),
    namespace   text,
    detail      text        NOT NULL,
    finding_no  integer     NOT NULL,
    PRIMARY KEY (run_id, finding_no)
);
CREATE INDEX drift_report_at ON gold.drift_report (at);
COMMENT ON TABLE gold.drift_report IS
    'Findings of every drift audit run (SPEC A1); a clean run leaves one info row saying so.';

GRANT SELECT, INSERT, DELETE ON gold.wiki_pages TO medallion_engine;
GRANT SELECT, INSERT ON gold.drift_report TO medallion_engine;
