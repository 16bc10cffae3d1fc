-- Retrieval chunks without their vectors.
select
    chunk_id,
    namespace,
    bronze_event_id,
    char_start,
    char_end,
    unit,
    text,
    context,
    occurred_at,
    provenance_root,
    thread,
    fingerprint
from {{ source('silver', 'chunks') }}
