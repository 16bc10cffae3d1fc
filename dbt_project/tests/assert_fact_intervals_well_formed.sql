{{ config(meta={"description": "Every fact version's valid time and transaction time run forwards, a version closes in both at once, and a closed version names its successor."}) }}
-- S5/S6 (the bitemporal ledger).
select fact_id
from {{ ref('stg_silver__facts') }}
where (valid_to is not null and valid_to < valid_from)
   or (superseded_at is not null and superseded_at < recorded_at)
   or ((valid_to is null) <> (superseded_at is null))
   or (superseded_by is not null and valid_to is null)
