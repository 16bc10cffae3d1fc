-- Monitored facts (S10): slots whose predicate is high-stakes and volatile (lives_in, works_at,
-- role, timezone, version ...). An alert is raised when such a belief changed, became contested or
-- went stale. A log derived from the ledger, so a rebuild reproduces it.
with predicates as (
    select * from {{ ref('predicates') }}
),

fact_history as (
    select * from {{ ref('fact_history') }}
),

current_facts as (
    select * from {{ ref('current_facts') }}
),

monitored as (
    select name as predicate
    from predicates
    where stakes = 'high' and volatility in ('volatile', 'ephemeral')
),

history as (
    select h.*
    from fact_history as h
    join monitored as m on m.predicate = h.predicate
),

changed as (
    select
        ('changed:' || old.fact_id)::text as alert_id,
        old.namespace::text as namespace,
        'changed'::text as alert_type,
        old.subject_name::text as subject_name,
        old.predicate::text as predicate,
        coalesce(new.fact_id, old.superseded_by)::text as fact_id,
        coalesce(new.statement, '')::text as statement,
        old.statement::text as previous_statement,
        old.superseded_at::timestamptz as raised_at,
        coalesce(new.authority, old.authority)::integer as authority
    from history as old
    left join history as new on new.fact_id = old.superseded_by
    where old.superseded_by is not null
),

contested as (
    select
        ('contested:' || h.fact_id)::text as alert_id,
        h.namespace::text as namespace,
        'contested'::text as alert_type,
        h.subject_name::text as subject_name,
        h.predicate::text as predicate,
        h.fact_id::text as fact_id,
        h.statement::text as statement,
        null::text as previous_statement,
        h.recorded_at::timestamptz as raised_at,
        h.authority::integer as authority
    from history as h
    where h.is_current and h.contested
),

stale as (
    select
        ('stale:' || f.fact_id)::text as alert_id,
        f.namespace::text as namespace,
        'stale'::text as alert_type,
        f.subject_name::text as subject_name,
        f.predicate::text as predicate,
        f.fact_id::text as fact_id,
        f.statement::text as statement,
        null::text as previous_statement,
        (f.verified_at + f.half_life)::timestamptz as raised_at,
        f.authority::integer as authority
    from current_facts as f
    join monitored as m on m.predicate = f.predicate
    where f.is_stale
),

alerts as (
    select * from changed
    union all
    select * from contested
    union all
    select * from stale
)

select * from alerts
