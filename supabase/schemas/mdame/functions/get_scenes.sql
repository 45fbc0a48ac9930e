create or replace function mdame.get_scenes(p_unit_id uuid)
returns setof mdame.scenes
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.scenes where unit_id = p_unit_id order by scene_index;
$$;
