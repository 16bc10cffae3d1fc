-- Model calls, tokens, cache hit rate and cost per day (D1): the cost side of every Bronze row.
-- Prices come from the model_prices seed (0 for the offline heuristic and the local embedder).
with model_calls as (
    select * from {{ ref('stg_telemetry__model_calls') }}
),

derivations as (
    select * from {{ ref('stg_silver__derivations') }}
),

model_prices as (
    select * from {{ ref('model_prices') }}
),

calls as (
    select
        (c.called_at at time zone 'UTC')::date as day,
        coalesce(c.namespace, '(none)') as namespace,
        c.step,
        c.provider,
        c.model,
        count(*) as n_calls,
        count(*) filter (where c.cache_hit) as n_cache_hits,
        count(*) filter (where not c.ok) as n_errors,
        sum(c.input_tokens) as input_tokens,
        sum(c.output_tokens) as output_tokens,
        avg(c.latency_ms) filter (where not c.cache_hit) as mean_latency_ms
    from model_calls as c
    group by 1, 2, 3, 4, 5
),

derived as (
    select namespace, (derived_at at time zone 'UTC')::date as day, count(*) as n_events_derived
    from derivations
    group by 1, 2
),

daily as (
    select
        c.day::date as day,
        c.namespace::text as namespace,
        c.step::text as step,
        c.provider::text as provider,
        c.model::text as model,
        c.n_calls::bigint as n_calls,
        c.n_cache_hits::bigint as n_cache_hits,
        (c.n_cache_hits::double precision / c.n_calls) as cache_hit_rate,
        c.n_errors::bigint as n_errors,
        c.input_tokens::bigint as input_tokens,
        c.output_tokens::bigint as output_tokens,
        c.mean_latency_ms::double precision as mean_latency_ms,
        (coalesce(p.usd_per_1k_input_tokens, 0) * c.input_tokens / 1000.0
            + coalesce(p.usd_per_1k_output_tokens, 0) * c.output_tokens / 1000.0)::double precision as cost_usd,
        coalesce(d.n_events_derived, 0)::bigint as n_events_derived,
        ((coalesce(p.usd_per_1k_input_tokens, 0) * c.input_tokens / 1000.0
            + coalesce(p.usd_per_1k_output_tokens, 0) * c.output_tokens / 1000.0)
            / nullif(d.n_events_derived, 0))::double precision as cost_per_event_usd,
        (p.provider is not null) as is_priced
    from calls as c
    left join model_prices as p
        on p.provider = c.provider and coalesce(p.model, '') = c.model
    left join derived as d on d.namespace = c.namespace and d.day = c.day
)

select * from daily
