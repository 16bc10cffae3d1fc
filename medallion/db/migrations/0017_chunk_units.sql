-- Two granularities of a conversation turn or note. A turn of several sentences is indexed as its
-- whole passage and as each sentence: a question asks either about one claim ("When did Ana go to
-- the museum?", a sentence) or about what the turn says as a whole (a passage), and search fuses
-- both views (one vote per Bronze event each). Documents, issues and commits stay windows, which are
-- passages. A sentence chunk lies inside its passage's span, so the unit is also derivable from the
-- spans; it is stored so that the passage lists can filter by index.
SET LOCAL ROLE medallion_owner;

ALTER TABLE silver.chunks ADD COLUMN unit text NOT NULL DEFAULT 'passage'
    CHECK (unit IN ('passage', 'sentence'));
COMMENT ON COLUMN silver.chunks.unit IS
    'passage: a whole turn, note or document window; sentence: one sentence of a passage of several.';
CREATE INDEX chunks_passages ON silver.chunks (namespace) WHERE unit = 'passage';
COMMENT ON COLUMN silver.chunks.context IS
    'What the chunk is embedded and indexed with but does not serve: the previous event of its thread, its speaker, '
    'and for a turn or note the chunk restated to stand alone (first person as the speaker, absolute dates).';

-- BM25 over passages only: the chunks' collection statistics, with a unit filter. Same signature as
-- before, so fts_facts and fts_chunks are unchanged.
CREATE OR REPLACE FUNCTION silver.fts_rank(p_relation text, p_namespace text, p_all text, p_pairs text, p_any text,
                                           p_limit integer, p_current_only boolean, p_before timestamptz,
                                           p_cap integer)
RETURNS TABLE (id text, rank real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $fn$
DECLARE
    s      record;
    tbl    text := CASE p_relation WHEN 'facts' THEN 'facts' WHEN 'chunks' THEN 'chunks'
                                   WHEN 'passages' THEN 'chunks' END;
    key    text := CASE p_relation WHEN 'facts' THEN 'fact_id' ELSE 'chunk_id' END;
    filter text := CASE p_relation WHEN 'facts' THEN '(NOT $6 OR t.valid_to IS NULL)'
                                   WHEN 'chunks' THEN '($7::timestamptz IS NULL OR t.occurred_at <= $7)'
                                   ELSE '($7::timestamptz IS NULL OR t.occurred_at <= $7) AND t.unit = ''passage''' END;
    pass   text := 'SELECT t.%1$I AS id, t.tsv FROM silver.%2$I t WHERE t.namespace = $1 '
                   'AND t.tsv @@ to_tsquery(''english'', %4$s) AND %3$s LIMIT $8';
BEGIN
    IF tbl IS NULL THEN
        RAISE EXCEPTION 'no full-text search over %', p_relation;
    END IF;
    IF NOT auth.visible(p_namespace) THEN
        RAISE EXCEPTION 'namespace % is not visible to this transaction', p_namespace
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT * INTO s FROM silver.bm25_terms(p_namespace, tbl, p_any, p_cap);
    -- BM25, k1 = 1.2, b = 0.75: Σ idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avg len)), set-based
    RETURN QUERY EXECUTE format(
        'WITH cand AS (SELECT DISTINCT ON (id) id, tsv FROM ((' || pass || ') UNION ALL ('
        || replace(pass, '%4$s', '%5$s') || ') UNION ALL ('
        || replace(pass, 'to_tsquery(''english'', %4$s)', '$12') || ')) p), '
        'w AS (SELECT * FROM unnest($9::text[], $10::float8[]) AS w(lexeme, idf)) '
        'SELECT c.id, sum(w.idf * tf.n * 2.2 / (tf.n + 1.2 * (0.25 + 0.75 * length(c.tsv) / $11)))::real AS rank '
        'FROM cand c CROSS JOIN LATERAL unnest(c.tsv) u JOIN w ON w.lexeme = u.lexeme '
        'CROSS JOIN LATERAL (SELECT greatest(coalesce(cardinality(u.positions), 1), 1)::float8 AS n) tf '
        'GROUP BY c.id ORDER BY rank DESC, c.id LIMIT $5', key, tbl, filter, '$2', '$3')
        USING p_namespace, p_all, p_pairs, p_any, p_limit, p_current_only, p_before, p_cap,
              s.lexemes, s.idf, s.avg_len, s.rare;
END
$fn$;

CREATE FUNCTION silver.fts_passages(p_namespace text, p_all text, p_pairs text, p_any text, p_limit integer,
                                    p_before timestamptz, p_loose_cap integer DEFAULT 2000)
RETURNS TABLE (chunk_id text, rank real)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    SELECT * FROM silver.fts_rank('passages', p_namespace, p_all, p_pairs, p_any, p_limit, false, p_before,
                                  p_loose_cap)
$$;

REVOKE ALL ON FUNCTION silver.fts_passages(text, text, text, text, integer, timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION silver.fts_passages(text, text, text, text, integer, timestamptz, integer)
    TO medallion_tool, medallion_engine;
