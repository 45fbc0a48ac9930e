-- Any backend's clip of a scene (the oldest), for callers that predate per-backend entries.

create or replace function mdame.lookup_scene_cache(p_scene_hash text)
returns text
language sql
stable security definer
set search_path = ''
as $$
  select asset_key from mdame.scene_cache where scene_hash = p_scene_hash order by created_at, backend limit 1;
$$;

revoke all on function mdame.lookup_scene_cache(text) from public, anon, authenticated;
grant execute on function mdame.lookup_scene_cache(text) to mdame_engine;
grant execute on function mdame.lookup_scene_cache(text) to service_role;

create or replace function mdame.lookup_scene_cache(p_scene_hash text, p_backend text)
returns mdame.scene_cache
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.scene_cache where scene_hash = p_scene_hash and backend = p_backend;
$$;

revoke all on function mdame.lookup_scene_cache(text,text) from public, anon, authenticated;
grant execute on function mdame.lookup_scene_cache(text,text) to mdame_engine;
grant execute on function mdame.lookup_scene_cache(text,text) to service_role;
