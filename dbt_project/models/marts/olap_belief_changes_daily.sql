-- Every resolution decision per namespace and day (D1): how often a new candidate was new,
-- refined, contradicted or already known, and how often the authority policy left a pair contested.
with resolutions as (
    select * from {{ ref('stg_silver__resolutions') }}
),

daily as (
    select
        r.namespace::text as namespace,
        (r.decided_at at time zone 'UTC')::date as day,
        count(*)::bigint as n_candidates,
        count(*) filter (where r.decision = 'add')::bigint as n_add,
        count(*) filter (where r.decision = 'update')::bigint as n_update,
        count(*) filter (where r.decision = 'supersede')::bigint as n_supersede,
        count(*) filter (where r.decision = 'skip')::bigint as n_skip,
        count(*) filter (where r.outcome = 'contested')::bigint as n_contested,
        (count(*) filter (where r.decision = 'update'))::double precision / count(*) as update_rate,
        (count(*) filter (where r.decision = 'supersede'))::double precision / count(*) as supersede_rate,
        (count(*) filter (where r.outcome = 'contested'))::double precision / count(*) as contested_rate
    from resolutions as r
    group by 1, 2
)

select * from daily
