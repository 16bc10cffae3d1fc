select
    namespace,
    predicate,
    cardinality,
    origin,
    aliases,
    first_seen,
    fact_count,
    current_count,
    examples
from {{ source('silver', 'predicates') }}
