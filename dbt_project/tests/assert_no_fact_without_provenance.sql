{{ config(meta={"description": "Every fact names the Bronze event it came from and that event's provenance root."}) }}
-- S5 (provenance on every fact).
select fact_id
from {{ ref('stg_silver__facts') }}
where bronze_event_id is null or provenance_root is null or btrim(provenance_root) = ''
