-- People's overlays anchored to the current ledger (G6); anchor_score as double precision.
select
    bronze_event_id,
    namespace,
    target_fact_id,
    fact_id,
    action,
    exact,
    prefix,
    suffix,
    text,
    note,
    status,
    anchor_method,
    anchor_score::double precision as anchor_score,
    span_start,
    span_end,
    author,
    replaces,
    recorded_at,
    provenance_root,
    fingerprint
from {{ source('silver', 'overlays') }}
