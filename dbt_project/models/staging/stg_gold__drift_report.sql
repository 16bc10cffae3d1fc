-- The drift audit's findings, renamed for the review queue.
select
    run_id,
    at as audited_at,
    check_name,
    severity,
    namespace,
    detail,
    finding_no
from {{ source('gold', 'drift_report') }}
