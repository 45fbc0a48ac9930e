-- The engine's state lives in schema mdame. Every table has RLS on and no policy for anon or
-- authenticated: only the service role, through the RPCs, touches it.

create schema if not exists mdame;
revoke all on schema mdame from public;
revoke all on schema mdame from anon, authenticated;
grant usage on schema mdame to service_role;
