-- Relations between entities (entity-valued facts) with both names and the belief's validity;
-- graph questions walk the current edges with recursive CTEs (bounded depth).
-- One import CTE per role an entity plays, each read once (see current_facts).
with edges as (
    select * from {{ ref('stg_silver__edges') }}
),

facts as (
    select * from {{ ref('stg_silver__facts') }}
),

subjects as (
    select * from {{ ref('stg_silver__entities') }}
),

objects as (
    select * from {{ ref('stg_silver__entities') }}
),

entity_graph as (
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
    from edges as e
    join facts as f on f.fact_id = e.fact_id
    join subjects as s on s.entity_id = e.subject_id
    join objects as o on o.entity_id = e.object_id
)

select * from entity_graph
