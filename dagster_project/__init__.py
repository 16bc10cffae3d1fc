"""The Dagster code location of medallion-memory: asset modules (one per layer), resources, the dbt
wiring, the asset keys and the jobs. Every asset body calls the engine (:mod:`medallion`)."""
