-- What is believed now: open versions of every slot, with subject and object names resolved.
-- Contested pairs both appear (contested = true) until a person decides.
-- One import CTE per role an entity plays: PostgreSQL inlines a CTE read once, so a filter on the view
-- still reaches the ledger's indexes.
with facts as (
    select * from {{ ref('stg_silver__facts') }}
),

subjects as (
    select * from {{ ref('stg_silver__entities') }}
),

objects as (
    select * from {{ ref('stg_silver__entities') }}
),

current_facts as (
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
    from facts as f
    join subjects as s on s.entity_id = f.subject_id
    left join objects as o on o.entity_id = f.object_entity_id
    where f.valid_to is null
)

select * from current_facts
