-- Ingest volume per namespace and day (D1): events landed, their bytes and sources, and what
-- was quarantined. Quarantined lines without a readable namespace are counted under '(unknown)'.
with events as (
    select * from {{ ref('stg_bronze__events') }}
),

quarantine as (
    select * from {{ ref('stg_bronze__quarantine') }}
),

landed as (
    select
        namespace,
        (received_at at time zone 'UTC')::date as day,
        count(*) as n_events,
        sum(octet_length(content)) as content_bytes,
        count(distinct source) as n_sources
    from events
    group by 1, 2
),

rejected as (
    select
        coalesce(namespace, '(unknown)') as namespace,
        (quarantined_at at time zone 'UTC')::date as day,
        count(*) as n_quarantined
    from quarantine
    group by 1, 2
),

daily as (
    select
        coalesce(l.namespace, r.namespace)::text as namespace,
        coalesce(l.day, r.day)::date as day,
        coalesce(l.n_events, 0)::bigint as n_events,
        coalesce(l.content_bytes, 0)::bigint as content_bytes,
        coalesce(l.n_sources, 0)::bigint as n_sources,
        coalesce(r.n_quarantined, 0)::bigint as n_quarantined,
        (coalesce(r.n_quarantined, 0)::double precision
            / nullif(coalesce(l.n_events, 0) + coalesce(r.n_quarantined, 0), 0)) as quarantine_rate
    from landed as l
    full outer join rejected as r on r.namespace = l.namespace and r.day = l.day
)

select * from daily
