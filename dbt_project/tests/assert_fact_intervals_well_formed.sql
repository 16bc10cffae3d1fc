-- S5/S6: valid time and transaction time intervals never run backwards, a version closes in
-- both times at once, and a closed version names its successor.
select fact_id
from {{ ref('stg_silver__facts') }}
where (valid_to is not null and valid_to < valid_from)
   or (superseded_at is not null and superseded_at < recorded_at)
   or ((valid_to is null) <> (superseded_at is null))
   or (superseded_by is not null and valid_to is null)
