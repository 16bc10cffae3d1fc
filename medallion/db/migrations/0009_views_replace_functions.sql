-- The dbt views silver.current_facts and silver.fact_history (SPEC section 5) replace the two SQL
-- functions of the same names from 0005: dbt lists functions among a schema's relations and would
-- take them for an existing view. silver.facts_as_of(namespace, valid_at, recorded_at) stays: the
-- engine's as-of query uses it, and the dbt macro facts_as_of has the same semantics.
SET LOCAL ROLE medallion_owner;
DROP FUNCTION IF EXISTS silver.current_facts(text);
DROP FUNCTION IF EXISTS silver.fact_history(text, text, text);
