-- Search speed at 100k facts (issue 33, point 4); what search returns is unchanged.
--
-- * silver.fts_rank: the three candidate passes and the BM25 formula are the same; what changed is
--   how it gets there. It scored a candidate by unnesting its whole tsvector (every lexeme with its
--   positions, in a function scan per candidate) and joining the query's lexemes: most of a search's
--   time at 100k facts. Now each candidate's tsvector is first cut to the query's lexemes in C
--   (setweight marks them, ts_filter keeps the marked ones: every stored tsv has positions, so none
--   is lost), and the rest unnested in the select list. The candidates are deduplicated by hashing
--   their ids rather than by sorting the rows with their vectors. The queries are static, so the
--   function's plans are cached instead of planned on every call, and a relation with no document
--   in the namespace (no chunks yet) returns at once.
-- * The row-level-security policies of the tool login admit only leakproof operators to an index:
--   `aliases && keys` (the entities a query names by an alias) and `LIKE '% of %'` (the entities
--   named "<part> of <name>") read every entity of the namespace. Two functions read them by index
--   for a namespace of the caller's scope, as the policy would have filtered them.
SET LOCAL ROLE medallion_owner;

CREATE OR REPLACE FUNCTION silver.fts_rank(p_relation text, p_namespace text, p_all text, p_pairs text, p_any text,
                                           p_limit integer, p_current_only boolean, p_before timestamptz,
                                           p_cap integer)
RETURNS TABLE (id text, rank real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $fn$
DECLARE
    s   record;
    tbl text := CASE p_relation WHEN 'facts' THEN 'facts' WHEN 'chunks' THEN 'chunks'
                                WHEN 'passages' THEN 'chunks' END;
BEGIN
    IF tbl IS NULL THEN
        RAISE EXCEPTION 'no full-text search over %', p_relation;
    END IF;
    IF NOT auth.visible(p_namespace) THEN
        RAISE EXCEPTION 'namespace % is not visible to this transaction', p_namespace
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM silver.fts_docs d
                   WHERE d.namespace = p_namespace AND d.relation = tbl AND d.docs > 0) THEN
        RETURN;
    END IF;
    SELECT * INTO s FROM silver.bm25_terms(p_namespace, tbl, p_any, p_cap);
    -- BM25, k1 = 1.2, b = 0.75: Σ idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avg len)), set-based;
    -- u: a candidate's length and the query's lexemes in it, with their positions (tf)
    IF tbl = 'facts' THEN
        RETURN QUERY
        WITH cand AS (
            SELECT p.id, any_value(p.tsv) AS tsv FROM (
                (SELECT t.fact_id AS id, t.tsv FROM silver.facts t WHERE t.namespace = p_namespace
                 AND t.tsv @@ to_tsquery('english', p_all) AND (NOT p_current_only OR t.valid_to IS NULL) LIMIT p_cap)
                UNION ALL
                (SELECT t.fact_id, t.tsv FROM silver.facts t WHERE t.namespace = p_namespace
                 AND t.tsv @@ to_tsquery('english', p_pairs) AND (NOT p_current_only OR t.valid_to IS NULL) LIMIT p_cap)
                UNION ALL
                (SELECT t.fact_id, t.tsv FROM silver.facts t WHERE t.namespace = p_namespace
                 AND t.tsv @@ s.rare AND (NOT p_current_only OR t.valid_to IS NULL) LIMIT p_cap)) p
            GROUP BY p.id
        ), u AS (
            SELECT c.id, length(c.tsv) AS len, (unnest(ts_filter(setweight(c.tsv, 'A', s.lexemes), '{a}'))).*
            FROM cand c
        )
        SELECT u.id, sum(w.idf * tf.n * 2.2 / (tf.n + 1.2 * (0.25 + 0.75 * u.len / s.avg_len)))::real AS rank
        FROM u JOIN unnest(s.lexemes, s.idf) AS w(lexeme, idf) ON w.lexeme = u.lexeme
        CROSS JOIN LATERAL (SELECT greatest(coalesce(cardinality(u.positions), 1), 1)::float8 AS n) tf
        GROUP BY u.id ORDER BY 2 DESC, 1 LIMIT p_limit;
    ELSE
        RETURN QUERY
        WITH cand AS (
            SELECT p.id, any_value(p.tsv) AS tsv FROM (
                (SELECT t.chunk_id AS id, t.tsv FROM silver.chunks t WHERE t.namespace = p_namespace
                 AND t.tsv @@ to_tsquery('english', p_all) AND (p_before IS NULL OR t.occurred_at <= p_before)
                 AND (p_relation = 'chunks' OR t.unit = 'passage') LIMIT p_cap)
                UNION ALL
                (SELECT t.chunk_id, t.tsv FROM silver.chunks t WHERE t.namespace = p_namespace
                 AND t.tsv @@ to_tsquery('english', p_pairs) AND (p_before IS NULL OR t.occurred_at <= p_before)
                 AND (p_relation = 'chunks' OR t.unit = 'passage') LIMIT p_cap)
                UNION ALL
                (SELECT t.chunk_id, t.tsv FROM silver.chunks t WHERE t.namespace = p_namespace
                 AND t.tsv @@ s.rare AND (p_before IS NULL OR t.occurred_at <= p_before)
                 AND (p_relation = 'chunks' OR t.unit = 'passage') LIMIT p_cap)) p
            GROUP BY p.id
        ), u AS (
            SELECT c.id, length(c.tsv) AS len, (unnest(ts_filter(setweight(c.tsv, 'A', s.lexemes), '{a}'))).*
            FROM cand c
        )
        SELECT u.id, sum(w.idf * tf.n * 2.2 / (tf.n + 1.2 * (0.25 + 0.75 * u.len / s.avg_len)))::real AS rank
        FROM u JOIN unnest(s.lexemes, s.idf) AS w(lexeme, idf) ON w.lexeme = u.lexeme
        CROSS JOIN LATERAL (SELECT greatest(coalesce(cardinality(u.positions), 1), 1)::float8 AS n) tf
        GROUP BY u.id ORDER BY 2 DESC, 1 LIMIT p_limit;
    END IF;
END
$fn$;

-- The entities of a namespace in the caller's scope that carry one of p_aliases (by entities_aliases).
CREATE FUNCTION silver.entities_aliased(p_namespace text, p_aliases text[])
RETURNS TABLE (entity_id text, canonical_name text, normalized_name text, aliases text[])
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    SELECT e.entity_id, e.canonical_name, e.normalized_name, e.aliases FROM silver.entities e
    WHERE e.namespace = p_namespace AND e.aliases && p_aliases AND auth.visible(p_namespace)
$$;

-- The entities of a namespace in the caller's scope named "<part> of <name>" (graph.part_hops).
CREATE INDEX entities_named_parts ON silver.entities (namespace) WHERE normalized_name LIKE '% of %';
CREATE FUNCTION silver.entities_named_parts(p_namespace text)
RETURNS TABLE (entity_id text, normalized_name text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    SELECT e.entity_id, e.normalized_name FROM silver.entities e
    WHERE e.namespace = p_namespace AND e.normalized_name LIKE '% of %' AND auth.visible(p_namespace)
$$;

REVOKE ALL ON FUNCTION silver.entities_aliased(text, text[]), silver.entities_named_parts(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION silver.entities_aliased(text, text[]), silver.entities_named_parts(text)
    TO medallion_tool, medallion_engine;
