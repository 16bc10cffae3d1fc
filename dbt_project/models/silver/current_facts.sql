-- What is believed now: open versions of every slot, with subject and object names resolved.
-- Contested pairs both appear (contested = true) until a person decides.
select
    f.fact_id,
    f.namespace,
    f.subject_id,
    s.canonical_name as subject_name,
    f.predicate,
    f.cardinality,
    f.value,
    f.value_text,
    f.statement,
    f.valid_from,
    f.recorded_at,
    f.verified_at,
    f.source,
    f.authority,
    f.confidence,
    f.contested,
    f.importance,
    f.half_life,
    f.retention_class,
    (current_timestamp - f.verified_at) > f.half_life as is_stale,
    f.object_entity_id,
    o.canonical_name as object_name,
    f.bronze_event_id,
    f.provenance_root,
    f.fingerprint
from {{ ref('stg_silver__facts') }} as f
join {{ ref('stg_silver__entities') }} as s on s.entity_id = f.subject_id
left join {{ ref('stg_silver__entities') }} as o on o.entity_id = f.object_entity_id
where f.valid_to is null
