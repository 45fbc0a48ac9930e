-- The engine's state lives in schema mdame. Every table has RLS on and no policy; no client role
-- holds a privilege on a table: the engine role and the service role reach them only through the
-- RPCs, which run as their owner (docs/reference/roles.md).

create schema if not exists mdame;
revoke all on schema mdame from public;
revoke all on schema mdame from anon, authenticated;
grant usage on schema mdame to service_role;
