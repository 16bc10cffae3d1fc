select
    bronze_event_id,
    namespace,
    fingerprint,
    facts as n_facts,
    outcome,
    derived_at
from {{ source('silver', 'derivations') }}
