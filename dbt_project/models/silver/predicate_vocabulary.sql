-- Every predicate in use, per namespace: the engine's summary of the ledger, with the curated
-- predicate's description and seed aliases beside the phrases it was actually read from.
with aliases as (
    select * from {{ ref('predicate_aliases') }}
),

predicates_in_use as (
    select * from {{ ref('stg_silver__predicates') }}
),

curated as (
    select * from {{ ref('predicates') }}
),

seed_aliases as (
    select predicate, array_agg(alias order by alias) as seed_aliases
    from aliases
    group by predicate
),

predicate_vocabulary as (
    select
        p.namespace,
        p.predicate,
        p.cardinality,
        p.origin,
        p.aliases,
        coalesce(a.seed_aliases, array[]::text[]) as seed_aliases,
        coalesce(v.description, 'Learned from the relation phrase ''' || replace(p.predicate, '_', ' ') || '''')
            as description,
        p.first_seen,
        p.fact_count,
        p.current_count,
        p.examples
    from predicates_in_use as p
    left join curated as v on v.name = p.predicate
    left join seed_aliases as a on a.predicate = p.predicate
)

select * from predicate_vocabulary
