-- A full rebuild inserts every Silver row again; maintaining the HNSW and GIN search indexes row by
-- row costs more than building them once at the end. These owner functions let the engine (which
-- owns no index) suspend and restore exactly these indexes; `ensure` is idempotent, so a rebuild
-- killed half way leaves nothing missing after the next run.
SET LOCAL ROLE medallion_owner;

CREATE FUNCTION silver.suspend_search_indexes() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    DROP INDEX IF EXISTS silver.facts_embedding;
    DROP INDEX IF EXISTS silver.facts_fts;
    DROP INDEX IF EXISTS silver.chunks_embedding;
    DROP INDEX IF EXISTS silver.chunks_tsv;
END
$$;

CREATE FUNCTION silver.ensure_search_indexes() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, silver AS $$
BEGIN
    CREATE INDEX IF NOT EXISTS facts_embedding ON silver.facts USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX IF NOT EXISTS facts_fts ON silver.facts USING gin (to_tsvector('english', statement));
    CREATE INDEX IF NOT EXISTS chunks_embedding ON silver.chunks USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX IF NOT EXISTS chunks_tsv ON silver.chunks USING gin (tsv);
END
$$;

REVOKE ALL ON FUNCTION silver.suspend_search_indexes(), silver.ensure_search_indexes() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION silver.suspend_search_indexes(), silver.ensure_search_indexes() TO medallion_engine;
