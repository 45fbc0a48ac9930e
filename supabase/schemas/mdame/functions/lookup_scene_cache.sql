-- Any backend's clip of a scene (the oldest), for callers that predate per-backend entries. A hit
-- pushes the entry's expiry (last_hit_at on the engine clock, docs/reference/retention.md).

create or replace function mdame.lookup_scene_cache(p_scene_hash text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_cache mdame.scene_cache;
begin
  select * into v_cache from mdame.scene_cache c where c.scene_hash = p_scene_hash order by c.created_at, c.backend limit 1;
  if not found then
    return null;
  end if;
  update mdame.scene_cache c set last_hit_at = mdame.engine_now() where c.scene_hash = v_cache.scene_hash and c.backend = v_cache.backend;
  return v_cache.asset_key;
end;
$$;

create or replace function mdame.lookup_scene_cache(p_scene_hash text, p_backend text)
returns mdame.scene_cache
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_cache mdame.scene_cache;
begin
  update mdame.scene_cache c set last_hit_at = mdame.engine_now() where c.scene_hash = p_scene_hash and c.backend = p_backend
  returning * into v_cache;
  return v_cache;
end;
$$;
