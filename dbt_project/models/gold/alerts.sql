-- Monitored facts (S10): slots whose predicate is high-stakes and volatile (lives_in, works_at,
-- role, timezone, version ...). An alert is raised when such a belief changed, became contested or
-- went stale. A log derived from the ledger, so a rebuild reproduces it.
with monitored as (
    select name as predicate
    from {{ ref('predicates') }}
    where stakes = 'high' and volatility in ('volatile', 'ephemeral')
),
history as (
    select h.*
    from {{ ref('fact_history') }} as h
    join monitored as m on m.predicate = h.predicate
)
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

union all

select
    ('contested:' || h.fact_id)::text,
    h.namespace::text,
    'contested'::text,
    h.subject_name::text,
    h.predicate::text,
    h.fact_id::text,
    h.statement::text,
    null::text,
    h.recorded_at::timestamptz,
    h.authority::integer
from history as h
where h.is_current and h.contested

union all

select
    ('stale:' || f.fact_id)::text,
    f.namespace::text,
    'stale'::text,
    f.subject_name::text,
    f.predicate::text,
    f.fact_id::text,
    f.statement::text,
    null::text,
    (f.verified_at + f.half_life)::timestamptz,
    f.authority::integer
from {{ ref('current_facts') }} as f
join monitored as m on m.predicate = f.predicate
where f.is_stale
