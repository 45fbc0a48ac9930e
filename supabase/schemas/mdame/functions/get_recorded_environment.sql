create or replace function mdame.get_recorded_environment()
returns text
language sql
stable security definer
set search_path = ''
as $$
  select value from mdame.settings where key = 'env';
$$;

revoke all on function mdame.get_recorded_environment() from public, anon, authenticated;
grant execute on function mdame.get_recorded_environment() to mdame_engine;
grant execute on function mdame.get_recorded_environment() to service_role;
