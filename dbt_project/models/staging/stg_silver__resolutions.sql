select
    bronze_event_id,
    candidate_index,
    namespace,
    candidate_fact_id,
    decision,
    outcome,
    target_fact_id,
    neighbours,
    reason,
    judge,
    fingerprint,
    decided_at,
    candidate
from {{ source('silver', 'resolutions') }}
