create or replace function mdame.get_recorded_environment()
returns text
language sql
stable security definer
set search_path = ''
as $$
  select value from mdame.settings where key = 'env';
$$;
