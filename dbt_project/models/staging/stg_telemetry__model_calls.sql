select
    call_id,
    at as called_at,
    step,
    provider,
    model,
    namespace,
    input_tokens,
    output_tokens,
    latency_ms::double precision as latency_ms,
    cache_hit,
    ok,
    error
from {{ source('telemetry', 'model_calls') }}
