-- Roles, extensions and schemas. Runs as the administrative login (superuser on the embedded
-- server). Roles are cluster-wide, so every CREATE ROLE is guarded.
--   medallion_owner  owns every object; never logs in.
--   medallion_engine the engine: INSERT/SELECT on Bronze (never UPDATE/DELETE/TRUNCATE), writes Silver.
--   medallion_tool   the consumer tools: Gold/Silver views only, under row-level security; no Bronze.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'medallion_owner') THEN
        CREATE ROLE medallion_owner NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'medallion_engine') THEN
        CREATE ROLE medallion_engine NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'medallion_tool') THEN
        CREATE ROLE medallion_tool NOLOGIN;
    END IF;
END
$$;

-- The login that runs migrations must be able to SET ROLE to each of them.
DO $$
BEGIN
    EXECUTE format('GRANT medallion_owner, medallion_engine, medallion_tool TO %I', current_user);
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'role grants to % skipped: %', current_user, SQLERRM;
END
$$;

DO $$
BEGIN
    EXECUTE format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO medallion_engine, medallion_tool',
                   current_database());
    EXECUTE format('GRANT CREATE, CONNECT, TEMPORARY ON DATABASE %I TO medallion_owner', current_database());
END
$$;

CREATE SCHEMA IF NOT EXISTS bronze AUTHORIZATION medallion_owner;
CREATE SCHEMA IF NOT EXISTS silver AUTHORIZATION medallion_owner;
CREATE SCHEMA IF NOT EXISTS gold AUTHORIZATION medallion_owner;
CREATE SCHEMA IF NOT EXISTS telemetry AUTHORIZATION medallion_owner;
CREATE SCHEMA IF NOT EXISTS auth AUTHORIZATION medallion_owner;

REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO medallion_owner, medallion_engine, medallion_tool;
GRANT USAGE ON SCHEMA bronze, silver, gold, telemetry, auth TO medallion_engine;
GRANT USAGE ON SCHEMA silver, gold TO medallion_tool;
-- The tool role gets nothing on bronze (SPEC G3), not even USAGE.
REVOKE ALL ON SCHEMA bronze FROM medallion_tool;
