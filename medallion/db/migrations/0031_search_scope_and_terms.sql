-- Search speed at 100k facts, third step (P4). What every function returns is unchanged.
--
-- * silver.bm25_terms looks each of the query's lexemes up by its key. Joined to the namespace's
--   silver.fts_terms rows, the planner (which expects one row per namespace and relation where the
--   table was not analysed since a load) merged the query's few lexemes with every lexeme of the
--   namespace: 4,500 rows read, 1.4 of the 2 ms the function took at 100k facts, for 4 lexemes.
-- * auth.scope() reads the backend's grant itself rather than through auth.trusted_session() and
--   auth.session_grant(): the same conditions, without two more security-definer calls (each sets
--   its search_path, and a SQL function's call is not inlined) on each of the dozen or so times a
--   search's statement evaluates the scope (once per table it reads under row-level security, and
--   in each full-text and alias function): about 20 → 10 µs a call.
SET LOCAL ROLE medallion_owner;

CREATE OR REPLACE FUNCTION silver.bm25_terms(p_namespace text, p_relation text, p_any text, p_cap integer,
                                             OUT lexemes text[], OUT idf float8[], OUT avg_len float8,
                                             OUT rare tsquery, OUT top float8[])
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
        -- one probe of the primary key per lexeme (OFFSET 0 keeps the subquery from becoming a join)
        LEFT JOIN LATERAL (SELECT t.ndoc, t.max_tf, t.min_len FROM silver.fts_terms t
                           WHERE t.namespace = p_namespace AND t.relation = p_relation AND t.lexeme = w.lexeme
                           OFFSET 0) t ON true
    )
    SELECT array_agg(w.lexeme ORDER BY w.lexeme),
           array_agg(w.idf ORDER BY w.lexeme),
           max(w.avg_len),
           string_agg(quote_literal(w.lexeme), ' | ')
               FILTER (WHERE w.running <= p_cap OR w.running = (SELECT min(running) FROM words))::tsquery,
           array_agg(w.idf * 2.2 * w.max_tf / (w.max_tf + 1.2 * (0.25 + 0.75 * w.min_len / w.avg_len)) ORDER BY w.lexeme)
    FROM words w
$$;

-- As in 0014: the transaction's narrowing (medallion.namespaces) within the backend's verified grant;
-- a trusted session (engine, administrative login) gets its narrowing as it is.
CREATE OR REPLACE FUNCTION auth.scope() RETURNS text[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, auth AS $$
DECLARE
    wanted  text[] := string_to_array(coalesce(current_setting('medallion.namespaces', true), ''), ',');
    granted text[];
BEGIN
    IF session_user::text <> 'medallion_tool' AND pg_has_role(session_user, 'medallion_engine', 'MEMBER') THEN
        RETURN wanted;  -- auth.trusted_session()
    END IF;
    SELECT s.namespaces INTO granted  -- auth.session_grant()
    FROM auth.sessions s
    LEFT JOIN auth.capabilities c ON c.capability_id = s.capability_id
    WHERE s.pid = pg_backend_pid()
      AND s.nonce = coalesce(current_setting('medallion.session', true), '')
      AND (s.capability_id IS NULL
           OR (c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > clock_timestamp())));
    IF granted IS NULL THEN
        RETURN ARRAY[]::text[];
    END IF;
    IF '*' = ANY (granted) THEN
        RETURN wanted;
    END IF;
    IF '*' = ANY (wanted) THEN
        RETURN granted;
    END IF;
    RETURN ARRAY(SELECT unnest(wanted) INTERSECT SELECT unnest(granted));
END
$$;
