-- Rejected input with its reason; the raw bytes stay in Bronze (they may not be valid UTF-8).
select
    quarantine_id,
    received_at as quarantined_at,
    origin,
    line_number,
    byte_offset,
    namespace,
    source,
    source_event_id,
    error_code,
    reason,
    conflict_event_id
from {{ source('bronze', 'quarantine') }}
