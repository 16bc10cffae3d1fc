select
    retrieval_id,
    at as retrieved_at,
    tool,
    namespace,
    principal,
    query,
    fact_ids,
    chunk_ids,
    hit,
    latency_ms::double precision as latency_ms,
    ok,
    error
from {{ source('telemetry', 'retrievals') }}
