create or replace function mdame.get_work_unit(p_id uuid)
returns setof mdame.work_units
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.work_units where id = p_id;
$$;
