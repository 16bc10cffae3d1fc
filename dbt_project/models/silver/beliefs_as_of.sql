-- The facts_as_of macro as a queryable view. Without vars it shows what is believed now; with vars
-- it answers "what did we believe on recorded_at about what was true at valid_at":
--   dbt show -s beliefs_as_of --vars '{valid_at: "2024-03-15", recorded_at: "2024-03-18"}'
with fact_history as (
    select * from {{ ref('fact_history') }}
),

beliefs_as_of as (
    {{ facts_as_of(var('valid_at', 'now'), var('recorded_at', 'now'), relation='fact_history') }}
)

select * from beliefs_as_of
