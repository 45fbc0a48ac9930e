create or replace function mdame.get_scene(p_id uuid)
returns setof mdame.scenes
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.scenes where id = p_id;
$$;
