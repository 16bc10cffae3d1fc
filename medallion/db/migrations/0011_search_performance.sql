-- Search performance (SPEC P4, P5), from bench/search.py's query plans on 100k facts:
--  * a stored tsvector on facts (ranking recomputed to_tsvector for every match);
--  * full-text candidates through owner functions that filter the namespace explicitly: under the
--    tool role's row-level security the `@@` operator (not leakproof) cannot use the GIN index, so
--    every search scanned the namespace. The functions refuse a namespace the transaction cannot see
--    (auth.visible), so the firewall holds;
--  * gold.event_provenance without security_barrier, so the join to a fact's event is an index
--    lookup instead of a scan of all of Bronze. The tool role cannot create functions, so no leaky
--    function can observe rows the view's filter removes.
SET LOCAL ROLE medallion_owner;

ALTER TABLE silver.facts ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', statement)) STORED;
DROP INDEX IF EXISTS silver.facts_fts;
CREATE INDEX facts_fts ON silver.facts USING gin (tsv);

CREATE OR REPLACE FUNCTION silver.suspend_search_indexes() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    DROP INDEX IF EXISTS silver.facts_embedding;
    DROP INDEX IF EXISTS silver.facts_fts;
    DROP INDEX IF EXISTS silver.chunks_embedding;
    DROP INDEX IF EXISTS silver.chunks_tsv;
END
$$;

CREATE OR REPLACE FUNCTION silver.ensure_search_indexes() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, silver AS $$
BEGIN
    CREATE INDEX IF NOT EXISTS facts_embedding ON silver.facts USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX IF NOT EXISTS facts_fts ON silver.facts USING gin (tsv);
    CREATE INDEX IF NOT EXISTS chunks_embedding ON silver.chunks USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX IF NOT EXISTS chunks_tsv ON silver.chunks USING gin (tsv);
END
$$;

-- Three passes keep the cost bounded on large namespaces: statements containing all the query's
-- words (fully ranked), then any two of them (ranked within the first p_loose_cap matches), then any
-- one (within p_loose_cap / 4): an OR of common words can match a large share of a namespace.
CREATE FUNCTION silver.fts_facts(p_namespace text, p_all text, p_pairs text, p_any text, p_limit integer,
                                 p_current_only boolean, p_loose_cap integer DEFAULT 2000)
RETURNS TABLE (fact_id text, rank real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    IF NOT auth.visible(p_namespace) THEN
        RAISE EXCEPTION 'namespace % is not visible to this transaction', p_namespace
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN QUERY
        WITH strict AS (
            SELECT f.fact_id, 1 + ts_rank_cd(f.tsv, q) AS rank
            FROM silver.facts f, to_tsquery('english', p_all) q
            WHERE f.namespace = p_namespace AND f.tsv @@ q AND (NOT p_current_only OR f.valid_to IS NULL)
            ORDER BY rank DESC, f.fact_id
            LIMIT p_limit
        ), pairs AS (
            SELECT m.fact_id, 0.5 + ts_rank_cd(m.tsv, q) AS rank
            FROM (SELECT f.fact_id, f.tsv FROM silver.facts f, to_tsquery('english', p_pairs) q
                  WHERE f.namespace = p_namespace AND f.tsv @@ q AND (NOT p_current_only OR f.valid_to IS NULL)
                  LIMIT p_loose_cap) m, to_tsquery('english', p_pairs) q
            ORDER BY rank DESC, m.fact_id
            LIMIT p_limit
        ), loose AS (
            SELECT m.fact_id, ts_rank_cd(m.tsv, q) AS rank
            FROM (SELECT f.fact_id, f.tsv FROM silver.facts f, to_tsquery('english', p_any) q
                  WHERE f.namespace = p_namespace AND f.tsv @@ q AND (NOT p_current_only OR f.valid_to IS NULL)
                  LIMIT p_loose_cap / 4) m, to_tsquery('english', p_any) q
            ORDER BY rank DESC, m.fact_id
            LIMIT p_limit
        )
        SELECT u.fact_id, max(u.rank)::real AS rank
        FROM (SELECT * FROM strict UNION ALL SELECT * FROM pairs UNION ALL SELECT * FROM loose) u
        GROUP BY u.fact_id
        ORDER BY rank DESC, u.fact_id
        LIMIT p_limit;
END
$$;

CREATE FUNCTION silver.fts_chunks(p_namespace text, p_all text, p_pairs text, p_any text, p_limit integer,
                                  p_before timestamptz, p_loose_cap integer DEFAULT 2000)
RETURNS TABLE (chunk_id text, rank real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    IF NOT auth.visible(p_namespace) THEN
        RAISE EXCEPTION 'namespace % is not visible to this transaction', p_namespace
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN QUERY
        WITH strict AS (
            SELECT c.chunk_id, 1 + ts_rank_cd(c.tsv, q) AS rank
            FROM silver.chunks c, to_tsquery('english', p_all) q
            WHERE c.namespace = p_namespace AND c.tsv @@ q AND (p_before IS NULL OR c.occurred_at <= p_before)
            ORDER BY rank DESC, c.chunk_id
            LIMIT p_limit
        ), pairs AS (
            SELECT m.chunk_id, 0.5 + ts_rank_cd(m.tsv, q) AS rank
            FROM (SELECT c.chunk_id, c.tsv FROM silver.chunks c, to_tsquery('english', p_pairs) q
                  WHERE c.namespace = p_namespace AND c.tsv @@ q AND (p_before IS NULL OR c.occurred_at <= p_before)
                  LIMIT p_loose_cap) m, to_tsquery('english', p_pairs) q
            ORDER BY rank DESC, m.chunk_id
            LIMIT p_limit
        ), loose AS (
            SELECT m.chunk_id, ts_rank_cd(m.tsv, q) AS rank
            FROM (SELECT c.chunk_id, c.tsv FROM silver.chunks c, to_tsquery('english', p_any) q
                  WHERE c.namespace = p_namespace AND c.tsv @@ q AND (p_before IS NULL OR c.occurred_at <= p_before)
                  LIMIT p_loose_cap / 4) m, to_tsquery('english', p_any) q
            ORDER BY rank DESC, m.chunk_id
            LIMIT p_limit
        )
        SELECT u.chunk_id, max(u.rank)::real AS rank
        FROM (SELECT * FROM strict UNION ALL SELECT * FROM pairs UNION ALL SELECT * FROM loose) u
        GROUP BY u.chunk_id
        ORDER BY rank DESC, u.chunk_id
        LIMIT p_limit;
END
$$;

REVOKE ALL ON FUNCTION silver.fts_facts(text, text, text, text, integer, boolean, integer),
    silver.fts_chunks(text, text, text, text, integer, timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION silver.fts_facts(text, text, text, text, integer, boolean, integer),
    silver.fts_chunks(text, text, text, text, integer, timestamptz, integer) TO medallion_tool, medallion_engine;

CREATE OR REPLACE VIEW gold.event_provenance WITH (security_barrier = false) AS
    SELECT e.event_id, e.namespace, e.source, e.source_event_id, e.kind, e.actor, e.occurred_at,
           e.received_at, e.provenance_root, e.authority
    FROM bronze.events e
    WHERE auth.visible(e.namespace);
