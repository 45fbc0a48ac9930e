create or replace function mdame.get_scene(p_id uuid)
returns setof mdame.scenes
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.scenes where id = p_id;
$$;

revoke all on function mdame.get_scene(uuid) from public, anon, authenticated;
grant execute on function mdame.get_scene(uuid) to mdame_engine;
grant execute on function mdame.get_scene(uuid) to service_role;
