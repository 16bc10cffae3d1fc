select
    entity_id,
    namespace,
    canonical_name,
    normalized_name,
    aliases,
    entity_type,
    first_event_id
from {{ source('silver', 'entities') }}
