{{ config(meta={"description": "A single-valued slot (subject and predicate) has at most one open version, unless its versions are contested."}) }}
-- S4/S5. The partial unique index enforces this on write; this test catches a database without it.
select namespace, subject_id, predicate, count(*) as n_open
from {{ ref('stg_silver__facts') }}
where cardinality = 'one' and valid_to is null and not contested
group by namespace, subject_id, predicate
having count(*) > 1
