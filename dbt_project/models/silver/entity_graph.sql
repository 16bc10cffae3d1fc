-- Relations between entities (entity-valued facts) with both names and the belief's validity;
-- graph questions walk the current edges with recursive CTEs (bounded depth).
select
    e.fact_id,
    e.namespace,
    e.subject_id,
    s.canonical_name as subject_name,
    e.predicate,
    e.object_id,
    o.canonical_name as object_name,
    f.statement,
    f.valid_from,
    f.valid_to,
    f.valid_to is null as is_current,
    f.authority,
    f.confidence,
    f.contested,
    f.provenance_root
from {{ ref('stg_silver__edges') }} as e
join {{ ref('stg_silver__facts') }} as f on f.fact_id = e.fact_id
join {{ ref('stg_silver__entities') }} as s on s.entity_id = e.subject_id
join {{ ref('stg_silver__entities') }} as o on o.entity_id = e.object_id
