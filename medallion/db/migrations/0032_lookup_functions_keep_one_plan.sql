-- Search speed at 100k facts, fourth step (P4). What every function returns is unchanged.
--
-- A SQL function with a SET clause is never inlined: PostgreSQL plans its body like a prepared
-- statement and, by default, plans it again for the values of each call until five such plans look
-- no cheaper than one generic plan. For these two lookups they never do (the generic estimate
-- counts a namespace's average rows, the custom one the call's), so every search planned both bodies
-- again: for silver.bm25_terms, 0.47 ms a call of which 0.07 ms is reading its few rows, and for
-- silver.entities_aliased 0.35 ms (both measured at 100k facts, 200 questions). Their plans do not
-- depend on the values: each probes a primary key or a GIN index once per lexeme or alias, whatever
-- the namespace holds. With one generic plan kept per session: 0.21 ms and 0.17 ms.
SET LOCAL ROLE medallion_owner;

ALTER FUNCTION silver.bm25_terms(text, text, text, integer) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION silver.entities_aliased(text, text[]) SET plan_cache_mode = force_generic_plan;
