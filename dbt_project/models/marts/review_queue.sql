-- What needs a person (G9): contested pairs the authority policy could not settle, quarantined
-- input, load-bearing facts (importance >= 0.5) past their half-life that need re-verifying,
-- people's overlays that no longer anchor to the ledger after a re-derivation (G6) or that were
-- refused (they would overwrite or retract a person's overlay without an approved request), Bronze
-- events the derivation parked (R4, R10), the latest drift audit's findings (A1) and pending erasure
-- requests (B7), among them those a speaker's forget request filed.
with current_facts as (
    select * from {{ ref('current_facts') }}
),

quarantine as (
    select * from {{ ref('stg_bronze__quarantine') }}
),

overlays as (
    select * from {{ ref('stg_silver__overlays') }}
),

drift_report as (
    select * from {{ ref('stg_gold__drift_report') }}
),

derivation_failures as (
    select * from {{ source('silver', 'derivation_failures') }}
),

events as (
    select * from {{ ref('stg_bronze__events') }}
),

erasure_requests as (
    select * from {{ source('bronze', 'erasure_requests') }}
),

contested as (
    select
        f.namespace,
        f.subject_name,
        f.predicate,
        array_agg(f.fact_id order by f.authority, f.valid_from, f.fact_id) as fact_ids,
        string_agg(f.statement || ' (authority ' || f.authority || ')', ' | '
                   order by f.authority, f.valid_from, f.fact_id) as statements,
        max(f.recorded_at) as detected_at,
        f.subject_id
    from current_facts as f
    where f.contested
    group by f.namespace, f.subject_id, f.subject_name, f.predicate
),

contested_items as (
    select
        ('contested:' || c.namespace || ':' || c.subject_id || ':' || c.predicate)::text as item_id,
        c.namespace::text as namespace,
        'contested'::text as item_kind,
        'high'::text as severity,
        c.subject_name::text as subject,
        ('Conflicting beliefs about ' || c.subject_name || ' / ' || c.predicate || ': ' || c.statements)::text
            as summary,
        c.fact_ids::text[] as fact_ids,
        null::bigint as quarantine_id,
        c.detected_at::timestamptz as detected_at,
        'Decide which version holds (an overlay or a higher-authority event) and the other is closed.'::text
            as action
    from contested as c
),

quarantined_items as (
    select
        ('quarantine:' || q.quarantine_id)::text as item_id,
        coalesce(q.namespace, '(unknown)')::text as namespace,
        'quarantined'::text as item_kind,
        'medium'::text as severity,
        coalesce(q.source || ':' || q.source_event_id, q.origin)::text as subject,
        (q.error_code || ' at ' || q.origin || coalesce(' line ' || q.line_number, '') || ': ' || q.reason)::text
            as summary,
        array[]::text[] as fact_ids,
        q.quarantine_id::bigint as quarantine_id,
        q.quarantined_at::timestamptz as detected_at,
        'Fix the input and ingest it again; the rejected bytes are kept in bronze.quarantine.'::text as action
    from quarantine as q
),

stale_items as (
    select
        ('stale:' || f.fact_id)::text as item_id,
        f.namespace::text as namespace,
        'stale'::text as item_kind,
        'low'::text as severity,
        f.subject_name::text as subject,
        ('Not re-verified for longer than its half-life (' || f.half_life || '): ' || f.statement)::text as summary,
        array[f.fact_id]::text[] as fact_ids,
        null::bigint as quarantine_id,
        (f.verified_at + f.half_life)::timestamptz as detected_at,
        'Re-verify with the subject or a primary source; a new event confirming it refreshes verified_at.'::text
            as action
    from current_facts as f
    where f.is_stale and f.importance >= 0.5
),

-- A redaction's quote is the text it hides: never repeat it in the queue.
overlay_items as (
    select
        ('overlay:' || o.bronze_event_id)::text as item_id,
        o.namespace::text as namespace,
        'overlay'::text as item_kind,
        'high'::text as severity,
        o.target_fact_id::text as subject,
        ('A person''s ' || o.action || ' overlay of fact ' || o.target_fact_id
         || case when o.action = 'redact' then ' (redacted text)' else ' ("' || o.exact || '")' end
         || case when o.status = 'refused'
                 then ' by ' || coalesce(o.author, 'an unknown author') || ' was not applied: it would overwrite or '
                      || 'retract a person''s overlay without an approved request.'
                 else ' no longer anchors to the ledger after a re-derivation.' end)::text as summary,
        array[o.target_fact_id]::text[] as fact_ids,
        null::bigint as quarantine_id,
        o.recorded_at::timestamptz as detected_at,
        (case when o.status = 'refused'
              then 'If the change is wanted, ask for it with medallion overlay edit|redact (or retract) so another '
                   || 'admin approves it; otherwise leave it: it stays unapplied.'
              else 'Re-apply it to the fact that now states this (medallion overlay edit|annotate|redact) or retract it '
                   || '(medallion overlay retract).' end)::text as action
    from overlays as o
    where o.status in ('unanchored', 'refused')
),

-- The latest drift audit's errors and warnings (A1); stale facts are listed above, one by one.
drift_items as (
    select
        ('drift:' || d.run_id || ':' || d.finding_no)::text as item_id,
        coalesce(d.namespace, '(all)')::text as namespace,
        'drift'::text as item_kind,
        (case when d.severity = 'error' then 'high' else 'medium' end)::text as severity,
        d.check_name::text as subject,
        d.detail::text as summary,
        array[]::text[] as fact_ids,
        null::bigint as quarantine_id,
        d.audited_at::timestamptz as detected_at,
        'Investigate the finding; a rebuild (medallion materialize --full-rebuild) repairs derived drift.'::text
            as action
    from drift_report as d
    where d.severity <> 'info'
      and d.check_name <> 'stale'
      and d.run_id = (select r.run_id from drift_report as r order by r.audited_at desc, r.run_id limit 1)
),

-- Bronze events the derivation parked (silver.derivation_failures): a model fault clears on a later
-- run; an event that fails every run is input the derivation cannot handle and only a person can
-- settle. Bronze is append-only, so the way out of bad input is an approved erasure.
derivation_failure_items as (
    select
        ('derivation_failure:' || x.bronze_event_id || ':' || x.step)::text as item_id,
        x.namespace::text as namespace,
        'derivation_failure'::text as item_kind,
        'medium'::text as severity,
        coalesce(e.source || ':' || e.source_event_id, 'event ' || x.bronze_event_id)::text as subject,
        ('Bronze event ' || x.bronze_event_id || coalesce(' (' || e.kind || ')', '') || ' could not be derived at the '
         || x.step || ' step (' || x.attempts || case when x.attempts = 1 then ' attempt' else ' attempts' end
         || '): ' || x.reason)::text as summary,
        array[]::text[] as fact_ids,
        null::bigint as quarantine_id,
        x.last_attempt_at::timestamptz as detected_at,
        'Decide whether the event or the derivation is wrong: bad input stays parked until its erasure is '
        'approved (medallion erase request), a derivation fault is fixed in the engine; every run retries it '
        'and a derived event leaves the queue.'::text as action
    from derivation_failures as x
    left join events as e on e.event_id = x.bronze_event_id
),

-- Pending erasure requests (B7): filed by an admin, or by the derivation when a speaker asked the
-- memory to forget their own data (requested by subject:<actor>; the matching facts and chunks are
-- withheld from serving meanwhile) or someone else's (speaker:<actor>). Each waits for a second person.
erasure_items as (
    select
        ('erasure:' || r.request_id)::text as item_id,
        r.namespace::text as namespace,
        'erasure_request'::text as item_kind,
        'high'::text as severity,
        r.requested_by::text as subject,
        ('Erasure request ' || r.request_id || ' of ' || coalesce('event ' || r.event_id, 'a scope of events')
         || ', requested by ' || r.requested_by || ', awaits the approval of an admin other than the requester: '
         || r.reason)::text as summary,
        array[]::text[] as fact_ids,
        null::bigint as quarantine_id,
        r.requested_at::timestamptz as detected_at,
        ('Approve it (medallion erase approve ' || r.request_id || ', as an admin who did not ask) or cancel it '
         || '(medallion erase cancel ' || r.request_id || ').')::text as action
    from erasure_requests as r
    where r.status = 'pending'
),

review_queue as (
    select * from contested_items
    union all
    select * from quarantined_items
    union all
    select * from stale_items
    union all
    select * from overlay_items
    union all
    select * from drift_items
    union all
    select * from derivation_failure_items
    union all
    select * from erasure_items
)

select * from review_queue
