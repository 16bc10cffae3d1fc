-- Facts recorded per namespace, day, predicate and authority tier (D1), with how many of them
-- are still believed and how many are contested.
with facts as (
    select * from {{ ref('stg_silver__facts') }}
),

daily as (
    select
        f.namespace::text as namespace,
        (f.recorded_at at time zone 'UTC')::date as day,
        f.predicate::text as predicate,
        f.authority::integer as authority,
        count(*)::bigint as n_facts,
        count(*) filter (where f.valid_to is null)::bigint as n_current,
        count(*) filter (where f.contested)::bigint as n_contested,
        avg(f.confidence)::double precision as mean_confidence,
        avg(f.importance)::double precision as mean_importance
    from facts as f
    group by 1, 2, 3, 4
)

select * from daily
