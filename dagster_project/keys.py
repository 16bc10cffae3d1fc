"""Every asset key the Dagster code location names, in one place (the dbt models' keys come from the
dbt translator in ``publish/dbt_runner.py``: ``<schema>/<name>``, or what the source's
``_<schema>__sources.yml`` declares)."""

import dagster as dg

from medallion.silver.derive import SILVER_TABLES

BRONZE_EVENTS = dg.AssetKey(["bronze", "events"])
# the Silver tables the derivation writes (one step, silver_derive), keyed silver/<table>
SILVER = {table.split(".", 1)[1]: dg.AssetKey(table.split(".", 1)) for table in SILVER_TABLES}
WIKI = dg.AssetKey(["gold", "wiki"])
COLUMN_META = dg.AssetKey(["gold", "column_meta"])
DRIFT_REPORT = dg.AssetKey(["gold", "drift_report"])
HINDSIGHT_MIRROR = dg.AssetKey(["gold", "hindsight_mirror"])
RETRIEVALS = dg.AssetKey(["telemetry", "retrievals"])  # written by the tools, one row per call
REVIEW_QUEUE = dg.AssetKey(["gold_marts", "review_queue"])  # a dbt model
ALERTS = dg.AssetKey(["gold_marts", "alerts"])  # a dbt model
# the staging view of the ledger, a dbt model: the ledger invariants are its checks
STAGED_FACTS = dg.AssetKey(["staging", "stg_silver__facts"])
PYTHON_ASSETS = (BRONZE_EVENTS, *SILVER.values(), WIKI, COLUMN_META, DRIFT_REPORT, HINDSIGHT_MIRROR)
