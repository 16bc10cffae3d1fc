-- PostgreSQL grants EXECUTE on its advisory-lock functions to PUBLIC, so every login could take the
-- locks the engine guards itself with (the migration lock, each namespace's ingest lock and
-- derivation lock, the erasure-scope lock) and keep them: every new process, or a namespace's
-- ingest, `remember` and derivation, would then wait behind the tool login. A grant to PUBLIC cannot
-- be taken from one role alone, so it is taken from PUBLIC and given back to the roles that take
-- these locks: the engine login, and the owner (Bronze's SECURITY DEFINER functions lock as the
-- owner). Administrators are superusers; the app login of an external server (`medallion_app`)
-- inherits from medallion_engine. The tool login keeps none of them: it never locks, because
-- `remember` and every other write run on the session's engine login.
--
-- Each database has its own catalog, so this binds the database migrated (and the databases later
-- copied from it as a template), not the rest of the server.
DO $$
DECLARE
    fn regprocedure;
BEGIN
    FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
              WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname LIKE 'pg\_%advisory\_%'
              ORDER BY 1
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', fn);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO medallion_engine, medallion_owner', fn);
    END LOOP;
    -- REVOKE by a login that does not own the functions only warns: refuse rather than leave them open.
    IF EXISTS (SELECT FROM pg_proc p
               WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname LIKE 'pg\_%advisory\_%'
                 AND has_function_privilege('medallion_tool', p.oid, 'EXECUTE')) THEN
        RAISE EXCEPTION '% may not take EXECUTE on PostgreSQL''s advisory-lock functions from PUBLIC, so the '
            'tool login could hold the engine''s locks: run `medallion db migrate` as a superuser', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
END
$$;
