{{ config(meta={"dagster": {"ref": {"name": "stg_silver__facts"}},
          "description": "Every fact, chunk and resolution points at a live Bronze event: Silver is derived from Bronze only."}) }}
-- Silver is derived from Bronze only: every fact, chunk and resolution points at a live Bronze event
-- (an erased event's rows disappear when its namespace is re-derived). Reads the staging views of
-- the Silver tables so the test runs after they are built, and Bronze directly.
select 'facts' as relation, f.fact_id as row_id, f.bronze_event_id
from {{ ref('stg_silver__facts') }} as f
where not exists (select 1 from {{ source('bronze', 'events') }} as e where e.event_id = f.bronze_event_id)
union all
select 'chunks', c.chunk_id, c.bronze_event_id
from {{ ref('stg_silver__chunks') }} as c
where not exists (select 1 from {{ source('bronze', 'events') }} as e where e.event_id = c.bronze_event_id)
union all
select 'resolutions', r.candidate_fact_id, r.bronze_event_id
from {{ ref('stg_silver__resolutions') }} as r
where not exists (select 1 from {{ source('bronze', 'events') }} as e where e.event_id = r.bronze_event_id)
