-- Whether pg_net (or its stand-in, docs/reference/supabase-wiring.md) is there to send requests and
-- record their answers. assert_pg_net_ready refuses the wake-ups without it; the watchdog's own
-- sends and pings skip, saying so.

create or replace function mdame.pg_net_ready()
returns boolean
language sql
stable
set search_path = ''
as $$
  select to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is not null and to_regclass('net._http_response') is not null;
$$;

comment on function mdame.pg_net_ready() is 'internal: whether net.http_post and net._http_response exist';
