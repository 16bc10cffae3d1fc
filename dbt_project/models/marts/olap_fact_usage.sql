-- Per fact: how often the tools returned it and when last (D1, G8). Facts never retrieved are
-- listed with zero: relevance is measured, not asserted.
with retrievals as (
    select * from {{ ref('stg_telemetry__retrievals') }}
),

facts as (
    select * from {{ ref('stg_silver__facts') }}
),

returned as (
    select u.fact_id, count(*) as n_retrievals, max(r.retrieved_at) as last_retrieved_at
    from retrievals as r
    cross join lateral unnest(r.fact_ids) as u(fact_id)
    where r.ok
    group by 1
),

fact_usage as (
    select
        f.fact_id::text as fact_id,
        f.namespace::text as namespace,
        f.predicate::text as predicate,
        (f.valid_to is null) as is_current,
        coalesce(u.n_retrievals, 0)::bigint as n_retrievals,
        u.last_retrieved_at::timestamptz as last_retrieved_at,
        f.importance::double precision as importance
    from facts as f
    left join returned as u on u.fact_id = f.fact_id
)

select * from fact_usage
