-- dbt's relations live in schemas of their own, never beside the engine's tables: the Silver views
-- in silver_views, the Gold tables in gold_marts (staging and reference were dbt's alone already).
-- The engine owns silver and gold; a dbt build can no longer collide with an engine object there.
-- Relations an earlier dbt build left in silver and gold are dropped; the next dbt build creates
-- them in their new schemas. The engine login reads every dbt relation (dbt grants SELECT on each).
SET LOCAL ROLE medallion_owner;
CREATE SCHEMA IF NOT EXISTS silver_views;
CREATE SCHEMA IF NOT EXISTS gold_marts;
GRANT USAGE ON SCHEMA silver_views, gold_marts TO medallion_engine;
DROP VIEW IF EXISTS silver.beliefs_as_of, silver.current_facts, silver.entity_graph, silver.fact_history,
    silver.predicate_vocabulary;
DROP TABLE IF EXISTS gold.alerts, gold.olap_belief_changes_daily, gold.olap_fact_usage, gold.olap_facts_daily,
    gold.olap_ingest_daily, gold.olap_model_costs_daily, gold.olap_retrievals_daily, gold.review_queue;
