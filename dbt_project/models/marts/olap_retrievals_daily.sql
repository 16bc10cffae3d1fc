-- Tool calls per namespace, day and tool (D1, G8): how often memory was asked, how often it
-- answered with something, how often a capability refused, and how fast.
with retrievals as (
    select * from {{ ref('stg_telemetry__retrievals') }}
),

daily as (
    select
        coalesce(r.namespace, '(none)')::text as namespace,
        (r.retrieved_at at time zone 'UTC')::date as day,
        r.tool::text as tool,
        count(*)::bigint as n_calls,
        count(*) filter (where r.hit)::bigint as n_hits,
        (count(*) filter (where r.hit))::double precision / count(*) as hit_rate,
        count(*) filter (where not r.ok)::bigint as n_denied_or_failed,
        avg(r.latency_ms)::double precision as mean_latency_ms
    from retrievals as r
    group by 1, 2, 3
)

select * from daily
