select
    fact_id,
    namespace,
    subject_id,
    object_id,
    predicate
from {{ source('silver', 'edges') }}
