-- The engine and the tools log in as their own roles (never as the administrative login followed by
-- SET ROLE, which SQL on the connection could undo with RESET ROLE). Neither is a member of any other
-- project role, so no statement on their connections can become the owner or a superuser.
ALTER ROLE medallion_engine LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
ALTER ROLE medallion_tool LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
ALTER ROLE medallion_owner NOLOGIN;

-- Capabilities are minted and revoked only through the administrative login (the local admin's
-- `medallion capability grant`): engine code cannot create itself an admin principal to approve
-- an erasure with. The engine keeps read access to resolve tokens.
REVOKE INSERT, UPDATE, DELETE ON auth.capabilities FROM medallion_engine;
GRANT SELECT ON auth.capabilities TO medallion_engine;
