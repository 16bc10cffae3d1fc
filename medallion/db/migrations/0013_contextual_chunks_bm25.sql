-- Retrieval quality, from the LoCoMo failure analysis (bench/results/locomo_proposals.md):
--  * contextual chunks: a transcript turn often only makes sense with the turn before it (the
--    question the answer replies to). `silver.chunks.context` holds the previous event of the same
--    namespace and provenance root ("speaker: text") and the speaker of the chunk itself; the chunk
--    is embedded and full-text indexed together with it, while the served text, span and provenance
--    stay the chunk's own. The context depends only on Bronze order, so a full rebuild and an
--    incremental run agree (R7);
--  * BM25 instead of ts_rank_cd in the full-text functions: ts_rank_cd has no inverse document
--    frequency, which is why PostgreSQL's OR ranking trailed BM25 by 7 points on raw turns. Document
--    frequencies per namespace live in two small tables kept exact by statement-level triggers on
--    the tables they count (insert, delete, truncate), so no code path can leave them stale.
SET LOCAL ROLE medallion_owner;

-- the previous event of a thread, found by index
CREATE INDEX events_thread ON bronze.events (namespace, provenance_root, event_id);

ALTER TABLE silver.chunks ADD COLUMN context text;
ALTER TABLE silver.chunks DROP COLUMN tsv;
ALTER TABLE silver.chunks ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english', coalesce(context || ' ', '') || text)) STORED;
CREATE INDEX chunks_tsv ON silver.chunks USING gin (tsv);
COMMENT ON COLUMN silver.chunks.context IS
    'What the chunk is embedded and indexed with but does not serve: the previous event of its thread and its speaker.';

CREATE TABLE silver.fts_docs (
    namespace  text   NOT NULL,
    relation   text   NOT NULL CHECK (relation IN ('facts', 'chunks')),
    docs       bigint NOT NULL,
    total_len  bigint NOT NULL,
    PRIMARY KEY (namespace, relation)
);
COMMENT ON TABLE silver.fts_docs IS 'BM25 collection statistics: documents and summed tsvector lengths per namespace.';

CREATE TABLE silver.fts_terms (
    namespace  text   NOT NULL,
    relation   text   NOT NULL CHECK (relation IN ('facts', 'chunks')),
    lexeme     text   NOT NULL,
    ndoc       bigint NOT NULL,
    PRIMARY KEY (namespace, relation, lexeme)
);
COMMENT ON TABLE silver.fts_terms IS 'BM25 document frequencies: documents containing each lexeme, per namespace.';

-- TG_ARGV: relation name, +1 (insert) or -1 (delete); the transition table is always `changed`
CREATE FUNCTION silver.fts_count() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
DECLARE
    rel  text    := TG_ARGV[0];
    sign integer := TG_ARGV[1]::integer;
BEGIN
    INSERT INTO silver.fts_docs AS d (namespace, relation, docs, total_len)
        SELECT c.namespace, rel, sign * count(*), sign * coalesce(sum(length(c.tsv)), 0)
        FROM changed c GROUP BY c.namespace ORDER BY c.namespace
    ON CONFLICT (namespace, relation) DO UPDATE
        SET docs = d.docs + excluded.docs, total_len = d.total_len + excluded.total_len;
    INSERT INTO silver.fts_terms AS t (namespace, relation, lexeme, ndoc)
        SELECT c.namespace, rel, u.lexeme, sign * count(*)
        FROM changed c, unnest(c.tsv) u GROUP BY c.namespace, u.lexeme ORDER BY c.namespace, u.lexeme
    ON CONFLICT (namespace, relation, lexeme) DO UPDATE SET ndoc = t.ndoc + excluded.ndoc;
    IF sign < 0 THEN
        DELETE FROM silver.fts_terms t
        WHERE t.relation = rel AND t.ndoc <= 0 AND t.namespace IN (SELECT DISTINCT c.namespace FROM changed c);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION silver.fts_clear() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    DELETE FROM silver.fts_docs WHERE relation = TG_ARGV[0];
    DELETE FROM silver.fts_terms WHERE relation = TG_ARGV[0];
    RETURN NULL;
END
$$;

CREATE TRIGGER facts_fts_added AFTER INSERT ON silver.facts REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fts_count('facts', '1');
CREATE TRIGGER facts_fts_removed AFTER DELETE ON silver.facts REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fts_count('facts', '-1');
CREATE TRIGGER facts_fts_truncated AFTER TRUNCATE ON silver.facts
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fts_clear('facts');
CREATE TRIGGER chunks_fts_added AFTER INSERT ON silver.chunks REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fts_count('chunks', '1');
CREATE TRIGGER chunks_fts_removed AFTER DELETE ON silver.chunks REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fts_count('chunks', '-1');
CREATE TRIGGER chunks_fts_truncated AFTER TRUNCATE ON silver.chunks
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fts_clear('chunks');

INSERT INTO silver.fts_docs (namespace, relation, docs, total_len)
    SELECT namespace, 'facts', count(*), coalesce(sum(length(tsv)), 0) FROM silver.facts GROUP BY namespace
    UNION ALL
    SELECT namespace, 'chunks', count(*), coalesce(sum(length(tsv)), 0) FROM silver.chunks GROUP BY namespace;
INSERT INTO silver.fts_terms (namespace, relation, lexeme, ndoc)
    SELECT f.namespace, 'facts', u.lexeme, count(*) FROM silver.facts f, unnest(f.tsv) u GROUP BY 1, 3
    UNION ALL
    SELECT c.namespace, 'chunks', u.lexeme, count(*) FROM silver.chunks c, unnest(c.tsv) u GROUP BY 1, 3;

-- The query's lexemes with their idf in one namespace's relation, and `rare`: a tsquery of its rarest
-- lexemes whose document frequencies add up to at most p_cap (at least the rarest one). The any-word
-- pass matches on `rare` only: bounded by construction, and a document that matches nothing but
-- common words would rank low under BM25 anyway.
CREATE FUNCTION silver.bm25_terms(p_namespace text, p_relation text, p_any text, p_cap integer,
                                  OUT lexemes text[], OUT idf float8[], OUT avg_len float8, OUT rare tsquery)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    WITH totals AS (
        SELECT coalesce(max(d.docs), 0)::float8 AS n,
               coalesce(max(d.total_len)::float8 / nullif(max(d.docs), 0), 1) AS avg_len
        FROM silver.fts_docs d WHERE d.namespace = p_namespace AND d.relation = p_relation
    ), words AS (
        SELECT w.lexeme, coalesce(t.ndoc, 0) AS ndoc,
               sum(coalesce(t.ndoc, 0)) OVER (ORDER BY coalesce(t.ndoc, 0), w.lexeme) AS running
        FROM (SELECT DISTINCT l AS lexeme
              FROM unnest(tsvector_to_array(to_tsvector('english', replace(p_any, '|', ' ')))) l) w
        LEFT JOIN silver.fts_terms t ON t.namespace = p_namespace AND t.relation = p_relation AND t.lexeme = w.lexeme
    )
    SELECT array_agg(w.lexeme ORDER BY w.lexeme),
           array_agg(ln((tot.n - w.ndoc + 0.5) / (w.ndoc + 0.5) + 1) ORDER BY w.lexeme),
           greatest(max(tot.avg_len), 1),
           string_agg(quote_literal(w.lexeme), ' | ')
               FILTER (WHERE w.running <= p_cap OR w.running = (SELECT min(running) FROM words))::tsquery
    FROM words w CROSS JOIN totals tot
$$;

-- Candidates from three passes (all words, any two, any of the rare words; each capped so that common
-- words stay bounded on a large namespace), ranked by BM25 over their union. One body serves facts
-- and chunks: the table, its key and its time filter are the only differences.
CREATE FUNCTION silver.fts_rank(p_relation text, p_namespace text, p_all text, p_pairs text, p_any text,
                                p_limit integer, p_current_only boolean, p_before timestamptz, p_cap integer)
RETURNS TABLE (id text, rank real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $fn$
DECLARE
    s      record;
    key    text := CASE p_relation WHEN 'facts' THEN 'fact_id' WHEN 'chunks' THEN 'chunk_id' END;
    filter text := CASE p_relation WHEN 'facts' THEN '(NOT $6 OR t.valid_to IS NULL)'
                                   ELSE '($7::timestamptz IS NULL OR t.occurred_at <= $7)' END;
    pass   text := 'SELECT t.%1$I AS id, t.tsv FROM silver.%2$I t WHERE t.namespace = $1 '
                   'AND t.tsv @@ to_tsquery(''english'', %4$s) AND %3$s LIMIT $8';
BEGIN
    IF key IS NULL THEN
        RAISE EXCEPTION 'no full-text search over %', p_relation;
    END IF;
    IF NOT auth.visible(p_namespace) THEN
        RAISE EXCEPTION 'namespace % is not visible to this transaction', p_namespace
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT * INTO s FROM silver.bm25_terms(p_namespace, p_relation, p_any, p_cap);
    -- BM25, k1 = 1.2, b = 0.75: Σ idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avg len)), set-based
    RETURN QUERY EXECUTE format(
        'WITH cand AS (SELECT DISTINCT ON (id) id, tsv FROM ((' || pass || ') UNION ALL ('
        || replace(pass, '%4$s', '%5$s') || ') UNION ALL ('
        || replace(pass, 'to_tsquery(''english'', %4$s)', '$12') || ')) p), '
        'w AS (SELECT * FROM unnest($9::text[], $10::float8[]) AS w(lexeme, idf)) '
        'SELECT c.id, sum(w.idf * tf.n * 2.2 / (tf.n + 1.2 * (0.25 + 0.75 * length(c.tsv) / $11)))::real AS rank '
        'FROM cand c CROSS JOIN LATERAL unnest(c.tsv) u JOIN w ON w.lexeme = u.lexeme '
        'CROSS JOIN LATERAL (SELECT greatest(coalesce(cardinality(u.positions), 1), 1)::float8 AS n) tf '
        'GROUP BY c.id ORDER BY rank DESC, c.id LIMIT $5', key, p_relation, filter, '$2', '$3')
        USING p_namespace, p_all, p_pairs, p_any, p_limit, p_current_only, p_before, p_cap,
              s.lexemes, s.idf, s.avg_len, s.rare;
END
$fn$;

CREATE OR REPLACE FUNCTION silver.fts_facts(p_namespace text, p_all text, p_pairs text, p_any text, p_limit integer,
                                            p_current_only boolean, p_loose_cap integer DEFAULT 2000)
RETURNS TABLE (fact_id text, rank real)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    SELECT * FROM silver.fts_rank('facts', p_namespace, p_all, p_pairs, p_any, p_limit, p_current_only, NULL,
                                  p_loose_cap)
$$;

CREATE OR REPLACE FUNCTION silver.fts_chunks(p_namespace text, p_all text, p_pairs text, p_any text, p_limit integer,
                                             p_before timestamptz, p_loose_cap integer DEFAULT 2000)
RETURNS TABLE (chunk_id text, rank real)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    SELECT * FROM silver.fts_rank('chunks', p_namespace, p_all, p_pairs, p_any, p_limit, false, p_before, p_loose_cap)
$$;

REVOKE ALL ON FUNCTION silver.bm25_terms(text, text, text, integer),
    silver.fts_rank(text, text, text, text, text, integer, boolean, timestamptz, integer) FROM PUBLIC;
