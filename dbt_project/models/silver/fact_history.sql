-- Every version of every slot, numbered in valid-time order; nothing here is ever overwritten.
with facts as (
    select * from {{ ref('stg_silver__facts') }}
),

subjects as (
    select * from {{ ref('stg_silver__entities') }}
),

fact_history as (
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
        f.valid_to,
        f.recorded_at,
        f.superseded_at,
        f.superseded_by,
        f.verified_at,
        f.source,
        f.authority,
        f.confidence,
        f.contested,
        f.importance,
        f.retention_class,
        f.valid_to is null as is_current,
        row_number() over (
            partition by f.namespace, f.subject_id, f.predicate
            order by f.valid_from, f.recorded_at, f.fact_id
        ) as version_number,
        f.bronze_event_id,
        f.provenance_root
    from facts as f
    join subjects as s on s.entity_id = f.subject_id
)

select * from fact_history
