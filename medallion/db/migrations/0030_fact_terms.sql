-- Search speed at 100k facts, second step (issue 33, point 4). What the full-text list returns is
-- unchanged where none of its passes reaches its cap; the pairs pass changed (see fts_rank).
--
-- * silver.fact_terms: the full text of the facts in a narrow table of their own (id, namespace,
--   whether the fact is believed now, tsvector), with the GIN index that used to sit on silver.facts.
--   A fact row carries its 1.5 KB embedding, so the ~1,000 candidates a full-text pass reads were
--   ~1,000 heap pages of a table larger than the server's buffers; here they are a few dozen.
--   Statement-level triggers on silver.facts keep it exact (insert, delete, the close that ends a
--   belief, truncate), as they keep the BM25 counts: no code path can leave it stale, and an
--   erasure that deletes a fact deletes its words with it.
-- * silver.entities_aliased looks each alias up by the GIN index (`@>` per alias). With `&&` over
--   the whole list the planner chose a scan of every entity of the namespace (1–3 ms at 5k
--   entities against 0.1 ms).
-- * The GIN indexes search reads take their rows at once (fastupdate off): with the default pending
--   list, every lookup also scans the rows inserted since the last vacuum, and after a load of 5k
--   entities an alias lookup took 4 ms instead of 0.1.
SET LOCAL ROLE medallion_owner;

CREATE TABLE silver.fact_terms (
    fact_id    text     PRIMARY KEY,
    namespace  text     NOT NULL,
    believed   boolean  NOT NULL,
    tsv        tsvector NOT NULL
);
COMMENT ON TABLE silver.fact_terms IS
    'The facts'' full text, narrow (no embedding), for BM25: one row per fact, kept exact by triggers on silver.facts.';
COMMENT ON COLUMN silver.fact_terms.believed IS 'valid_to IS NULL: the fact is believed now.';

INSERT INTO silver.fact_terms (fact_id, namespace, believed, tsv)
    SELECT fact_id, namespace, valid_to IS NULL, tsv FROM silver.facts;
DROP INDEX IF EXISTS silver.facts_fts;
CREATE INDEX fact_terms_tsv ON silver.fact_terms USING gin (tsv) WITH (fastupdate = off);
ALTER INDEX silver.entities_aliases SET (fastupdate = off);
SELECT gin_clean_pending_list('silver.entities_aliases');

-- One function per kind of statement, each reading its transition tables: `changed` (insert,
-- delete), `old_rows` and `new_rows` (update)
CREATE FUNCTION silver.fact_terms_added() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    INSERT INTO silver.fact_terms (fact_id, namespace, believed, tsv)
        SELECT c.fact_id, c.namespace, c.valid_to IS NULL, c.tsv FROM changed c;
    RETURN NULL;
END
$$;

CREATE FUNCTION silver.fact_terms_removed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    DELETE FROM silver.fact_terms t USING changed c WHERE t.fact_id = c.fact_id;
    RETURN NULL;
END
$$;

CREATE FUNCTION silver.fact_terms_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    DELETE FROM silver.fact_terms t USING old_rows o
        WHERE t.fact_id = o.fact_id AND o.fact_id NOT IN (SELECT n.fact_id FROM new_rows n);
    INSERT INTO silver.fact_terms AS t (fact_id, namespace, believed, tsv)
        SELECT n.fact_id, n.namespace, n.valid_to IS NULL, n.tsv FROM new_rows n
    ON CONFLICT (fact_id) DO UPDATE SET namespace = excluded.namespace, believed = excluded.believed, tsv = excluded.tsv
        WHERE (t.namespace, t.believed, t.tsv) IS DISTINCT FROM (excluded.namespace, excluded.believed, excluded.tsv);
    RETURN NULL;
END
$$;

CREATE FUNCTION silver.fact_terms_truncated() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    TRUNCATE silver.fact_terms;
    RETURN NULL;
END
$$;

CREATE TRIGGER facts_terms_added AFTER INSERT ON silver.facts REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fact_terms_added();
CREATE TRIGGER facts_terms_removed AFTER DELETE ON silver.facts REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fact_terms_removed();
CREATE TRIGGER facts_terms_changed AFTER UPDATE ON silver.facts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fact_terms_changed();
CREATE TRIGGER facts_terms_truncated AFTER TRUNCATE ON silver.facts
    FOR EACH STATEMENT EXECUTE FUNCTION silver.fact_terms_truncated();
REVOKE ALL ON FUNCTION silver.fact_terms_added(), silver.fact_terms_removed(), silver.fact_terms_changed(),
    silver.fact_terms_truncated() FROM PUBLIC;

-- A bulk load drops and rebuilds the search indexes; the facts' GIN index is now this table's.
CREATE OR REPLACE FUNCTION silver.suspend_search_indexes() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
BEGIN
    DROP INDEX IF EXISTS silver.facts_embedding;
    DROP INDEX IF EXISTS silver.fact_terms_tsv;
    DROP INDEX IF EXISTS silver.chunks_embedding;
    DROP INDEX IF EXISTS silver.chunks_tsv;
END
$$;

CREATE OR REPLACE FUNCTION silver.ensure_search_indexes() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, silver AS $$
BEGIN
    CREATE INDEX IF NOT EXISTS facts_embedding ON silver.facts USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX IF NOT EXISTS fact_terms_tsv ON silver.fact_terms USING gin (tsv) WITH (fastupdate = off);
    CREATE INDEX IF NOT EXISTS chunks_embedding ON silver.chunks USING hnsw (embedding vector_cosine_ops);
    CREATE INDEX IF NOT EXISTS chunks_tsv ON silver.chunks USING gin (tsv);
END
$$;

-- The entities of a namespace in the caller's scope that carry one of p_aliases: one index probe per alias.
CREATE OR REPLACE FUNCTION silver.entities_aliased(p_namespace text, p_aliases text[])
RETURNS TABLE (entity_id text, canonical_name text, normalized_name text, aliases text[])
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    SELECT e.entity_id, e.canonical_name, e.normalized_name, e.aliases FROM silver.entities e
    WHERE e.entity_id IN (SELECT a.entity_id FROM unnest(p_aliases) k, silver.entities a WHERE a.aliases @> ARRAY[k])
      AND e.namespace = p_namespace AND auth.visible(p_namespace)
$$;

-- The best score one lexeme can give a document on its own, so that BM25 can skip a rare word none
-- of whose documents could rank (silver.fts_rank): silver.fts_terms keeps, per lexeme, the most
-- occurrences in one document (max_tf) and the fewest lexemes of a document that holds it (min_len).
-- A delete leaves both as they were: they may then overstate the best score, never understate it.
ALTER TABLE silver.fts_terms ADD COLUMN max_tf integer NOT NULL DEFAULT 1, ADD COLUMN min_len integer NOT NULL DEFAULT 1;
COMMENT ON COLUMN silver.fts_terms.max_tf IS 'At least the most occurrences of the lexeme in one document (a bound for BM25).';
COMMENT ON COLUMN silver.fts_terms.min_len IS 'At most the fewest lexemes of a document holding it (a bound for BM25).';
UPDATE silver.fts_terms t SET max_tf = x.max_tf, min_len = x.min_len FROM (
    SELECT f.namespace, 'facts' AS relation, u.lexeme, max(greatest(coalesce(cardinality(u.positions), 1), 1)) AS max_tf,
           min(length(f.tsv)) AS min_len FROM silver.facts f, unnest(f.tsv) u GROUP BY 1, 3
    UNION ALL
    SELECT c.namespace, 'chunks', u.lexeme, max(greatest(coalesce(cardinality(u.positions), 1), 1)),
           min(length(c.tsv)) FROM silver.chunks c, unnest(c.tsv) u GROUP BY 1, 3) x
WHERE t.namespace = x.namespace AND t.relation = x.relation AND t.lexeme = x.lexeme;

CREATE OR REPLACE FUNCTION silver.fts_count() RETURNS trigger
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
    INSERT INTO silver.fts_terms AS t (namespace, relation, lexeme, ndoc, max_tf, min_len)
        SELECT c.namespace, rel, u.lexeme, sign * count(*), max(greatest(coalesce(cardinality(u.positions), 1), 1)),
               min(length(c.tsv))
        FROM changed c, unnest(c.tsv) u GROUP BY c.namespace, u.lexeme ORDER BY c.namespace, u.lexeme
    ON CONFLICT (namespace, relation, lexeme) DO UPDATE SET ndoc = t.ndoc + excluded.ndoc,
        max_tf = CASE WHEN sign > 0 THEN greatest(t.max_tf, excluded.max_tf) ELSE t.max_tf END,
        min_len = CASE WHEN sign > 0 THEN least(t.min_len, excluded.min_len) ELSE t.min_len END;
    IF sign < 0 THEN
        DELETE FROM silver.fts_terms t
        WHERE t.relation = rel AND t.ndoc <= 0 AND t.namespace IN (SELECT DISTINCT c.namespace FROM changed c);
    END IF;
    RETURN NULL;
END
$$;

-- bm25_terms as before, and `top`: each lexeme's best possible score in a document alone (0 when no
-- document of the namespace holds it), from the bounds above.
DROP FUNCTION silver.bm25_terms(text, text, text, integer);
CREATE FUNCTION silver.bm25_terms(p_namespace text, p_relation text, p_any text, p_cap integer,
                                  OUT lexemes text[], OUT idf float8[], OUT avg_len float8, OUT rare tsquery,
                                  OUT top float8[])
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $$
    WITH totals AS (
        SELECT coalesce(max(d.docs), 0)::float8 AS n,
               greatest(coalesce(max(d.total_len)::float8 / nullif(max(d.docs), 0), 1), 1) AS avg_len
        FROM silver.fts_docs d WHERE d.namespace = p_namespace AND d.relation = p_relation
    ), words AS (
        SELECT w.lexeme, ln((tot.n - coalesce(t.ndoc, 0) + 0.5) / (coalesce(t.ndoc, 0) + 0.5) + 1) AS idf,
               coalesce(t.max_tf, 0) AS max_tf, coalesce(t.min_len, 1) AS min_len, tot.avg_len,
               sum(coalesce(t.ndoc, 0)) OVER (ORDER BY coalesce(t.ndoc, 0), w.lexeme) AS running
        FROM (SELECT DISTINCT l AS lexeme
              FROM unnest(tsvector_to_array(to_tsvector('english', replace(p_any, '|', ' ')))) l) w
        CROSS JOIN totals tot
        LEFT JOIN silver.fts_terms t ON t.namespace = p_namespace AND t.relation = p_relation AND t.lexeme = w.lexeme
    )
    SELECT array_agg(w.lexeme ORDER BY w.lexeme),
           array_agg(w.idf ORDER BY w.lexeme),
           max(w.avg_len),
           string_agg(quote_literal(w.lexeme), ' | ')
               FILTER (WHERE w.running <= p_cap OR w.running = (SELECT min(running) FROM words))::tsquery,
           array_agg(w.idf * 2.2 * w.max_tf / (w.max_tf + 1.2 * (0.25 + 0.75 * w.min_len / w.avg_len)) ORDER BY w.lexeme)
    FROM words w
$$;
REVOKE ALL ON FUNCTION silver.bm25_terms(text, text, text, integer) FROM PUBLIC;

-- BM25 over the facts reads silver.fact_terms and skips the rare words that cannot rank; both branches
-- build their pairs pass from the head words' lexemes, one of them rare.
CREATE OR REPLACE FUNCTION silver.fts_rank(p_relation text, p_namespace text, p_all text, p_pairs text, p_any text,
                                           p_limit integer, p_current_only boolean, p_before timestamptz,
                                           p_cap integer)
RETURNS TABLE (id text, rank real)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, silver AS $fn$
DECLARE
    s        record;
    words    text;     -- the pairs' words (the query's first eight content words), space-separated
    head     text[];   -- their lexemes
    rarest   text[];   -- the query's lexemes in s.rare
    pairs    tsquery;  -- any two head lexemes, one of them rare
    prunable boolean;
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
    -- the pairs pass matches two of the head words' lexemes, one of them rare: a word the dictionary
    -- drops (a stop word) pairs with nothing, where to_tsquery(p_pairs) would keep its partner as a
    -- pair on its own, and two common words are no pair, as a common word alone is no candidate (a
    -- namespace's thousands of "… time zone" facts are not candidates for every question that says
    -- "time zone"; a rare word of the question finds the ones it is about)
    words := translate(p_pairs, '&|()', '    ');
    head := ARRAY(SELECT DISTINCT l FROM unnest(tsvector_to_array(to_tsvector('english', words))) l ORDER BY l);
    rarest := ARRAY(SELECT l FROM unnest(s.lexemes) l WHERE array_to_tsvector(ARRAY[l]) @@ s.rare);
    pairs := CASE WHEN cardinality(head) < 2 THEN to_tsquery('english', p_pairs) ELSE
             (SELECT string_agg(format('(%s & %s)', quote_literal(a), quote_literal(b)), ' | ')::tsquery
              FROM unnest(head) a, unnest(head) b WHERE a < b AND (a = ANY(rarest) OR b = ANY(rarest))) END;
    -- BM25, k1 = 1.2, b = 0.75: Σ idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · len / avg len)), set-based;
    -- u: a candidate's length and the query's lexemes in it, with their positions (tf)
    IF tbl = 'facts' THEN
        -- the first two passes are ranked in full; a rare word whose best possible score alone
        -- (bm25_terms' top) is below the p_limit-th of theirs adds no candidate that could rank: when
        -- those passes are complete and every lexeme of the query is one head word's only lexeme, a
        -- document the rare pass finds outside them holds only its rare word (with another, the pair
        -- of the two would have found it)
        SELECT coalesce(bool_and(cardinality(tsvector_to_array(to_tsvector('english', w))) <= 1), false)
               AND head IS NOT DISTINCT FROM s.lexemes
          INTO prunable
          FROM regexp_split_to_table(words, '\s+') w WHERE w <> '';
        RETURN QUERY
        WITH a AS MATERIALIZED (
            SELECT t.fact_id AS id, t.tsv FROM silver.fact_terms t WHERE t.namespace = p_namespace
            AND t.tsv @@ to_tsquery('english', p_all) AND (NOT p_current_only OR t.believed) LIMIT p_cap
        ), b AS MATERIALIZED (
            SELECT t.fact_id AS id, t.tsv FROM silver.fact_terms t WHERE t.namespace = p_namespace
            AND t.tsv @@ pairs AND (NOT p_current_only OR t.believed) LIMIT p_cap
        ), exact AS (
            SELECT p.id, any_value(p.tsv) AS tsv FROM (SELECT * FROM a UNION ALL SELECT * FROM b) p GROUP BY p.id
        ), ranked AS MATERIALIZED (
            SELECT u.id, sum(w.idf * tf.n * 2.2 / (tf.n + 1.2 * (0.25 + 0.75 * u.len / s.avg_len)))::real AS rank
            FROM (SELECT c.id, length(c.tsv) AS len, (unnest(ts_filter(setweight(c.tsv, 'A', s.lexemes), '{a}'))).*
                  FROM exact c) u
            JOIN unnest(s.lexemes, s.idf) AS w(lexeme, idf) ON w.lexeme = u.lexeme
            CROSS JOIN LATERAL (SELECT greatest(coalesce(cardinality(u.positions), 1), 1)::float8 AS n) tf
            GROUP BY u.id
        ), bar AS (
            SELECT CASE WHEN prunable AND (SELECT count(*) FROM a) < p_cap AND (SELECT count(*) FROM b) < p_cap
                   THEN (SELECT r.rank FROM ranked r ORDER BY r.rank DESC OFFSET p_limit - 1 LIMIT 1) END AS v
        ), rare AS (
            SELECT string_agg(quote_literal(w.lexeme), ' | ')::tsquery AS q
            FROM unnest(s.lexemes, s.top) AS w(lexeme, top) CROSS JOIN bar
            WHERE w.lexeme = ANY(rarest) AND (bar.v IS NULL OR w.top * 1.00001 >= bar.v)
        ), more AS (
            SELECT t.fact_id AS id, t.tsv FROM silver.fact_terms t WHERE t.namespace = p_namespace
            AND t.tsv @@ (SELECT q FROM rare) AND (NOT p_current_only OR t.believed) LIMIT p_cap
        ), extra AS (
            SELECT m.id, m.tsv FROM more m WHERE m.id NOT IN (SELECT e.id FROM exact e)
        ), ranked_extra AS (  -- as ranked, over the rare pass's other documents
            SELECT u.id, sum(w.idf * tf.n * 2.2 / (tf.n + 1.2 * (0.25 + 0.75 * u.len / s.avg_len)))::real AS rank
            FROM (SELECT c.id, length(c.tsv) AS len, (unnest(ts_filter(setweight(c.tsv, 'A', s.lexemes), '{a}'))).*
                  FROM extra c) u
            JOIN unnest(s.lexemes, s.idf) AS w(lexeme, idf) ON w.lexeme = u.lexeme
            CROSS JOIN LATERAL (SELECT greatest(coalesce(cardinality(u.positions), 1), 1)::float8 AS n) tf
            GROUP BY u.id
        )
        SELECT x.id, x.rank FROM (SELECT * FROM ranked UNION ALL SELECT * FROM ranked_extra) x
        ORDER BY 2 DESC, 1 LIMIT p_limit;
    ELSE
        RETURN QUERY
        WITH cand AS (
            SELECT p.id, any_value(p.tsv) AS tsv FROM (
                (SELECT t.chunk_id AS id, t.tsv FROM silver.chunks t WHERE t.namespace = p_namespace
                 AND t.tsv @@ to_tsquery('english', p_all) AND (p_before IS NULL OR t.occurred_at <= p_before)
                 AND (p_relation = 'chunks' OR t.unit = 'passage') LIMIT p_cap)
                UNION ALL
                (SELECT t.chunk_id, t.tsv FROM silver.chunks t WHERE t.namespace = p_namespace
                 AND t.tsv @@ pairs AND (p_before IS NULL OR t.occurred_at <= p_before)
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
