-- Bronze events, renamed and cast for the models above (content kept: reviewers read it).
select
    event_id,
    namespace,
    source,
    source_event_id,
    kind,
    actor,
    content,
    content_hash,
    occurred_at,
    received_at,
    provenance_root,
    authority::integer as authority,
    metadata,
    chain_hash
from {{ source('bronze', 'events') }}
