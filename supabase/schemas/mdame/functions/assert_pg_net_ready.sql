-- Refuses a wake-up on a database without pg_net (mdame.pg_net_ready), with SQLSTATE MDN01 and
-- the way to install it: the stage runner cannot be woken there.

create or replace function mdame.assert_pg_net_ready()
returns void
language plpgsql
stable
set search_path = ''
as $$
begin
  if not mdame.pg_net_ready() then
    raise exception 'pg_net is not installed (no net.http_post or net._http_response): the stage runner cannot be woken'
      using errcode = 'MDN01',
            hint = 'on Supabase: create extension pg_net; on plain Postgres: npm run db:reset, which installs supabase/pg-net-compat/pg_net.sql';
  end if;
end;
$$;

comment on function mdame.assert_pg_net_ready() is 'internal: raises MDN01 when pg_net is missing';
