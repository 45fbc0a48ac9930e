create or replace function mdame.get_scenes(p_unit_id uuid)
returns setof mdame.scenes
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.scenes where unit_id = p_unit_id order by scene_index;
$$;

revoke all on function mdame.get_scenes(uuid) from public, anon, authenticated;
grant execute on function mdame.get_scenes(uuid) to mdame_engine;
grant execute on function mdame.get_scenes(uuid) to service_role;
