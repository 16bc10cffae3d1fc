-- The migration history is readable by the project's logins, so an app that logs in without the
-- right to migrate (a non-superuser on an external server) can tell that its database is behind and
-- say what to run, instead of failing later on a missing table. Names and checksums only; nothing
-- here is written by anyone but the migration runner. The tool role gets nothing (it reads only the
-- Silver and Gold relations granted to it).
GRANT USAGE ON SCHEMA meta TO medallion_owner, medallion_engine;
GRANT SELECT ON meta.schema_migrations TO medallion_owner, medallion_engine;
