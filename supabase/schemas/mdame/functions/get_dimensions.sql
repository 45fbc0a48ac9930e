create or replace function mdame.get_dimensions(p_id text default null::text)
returns setof mdame.dimensions
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.dimensions where p_id is null or id = p_id order by id;
$$;
