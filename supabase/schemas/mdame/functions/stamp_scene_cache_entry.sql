-- Stamps a new scene cache entry's last_hit_at on the engine's clock (its TTL counts from it).

create or replace function mdame.stamp_scene_cache_entry()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.last_hit_at := mdame.engine_now();
  return new;
end;
$$;

comment on function mdame.stamp_scene_cache_entry() is 'internal: trigger stamping scene_cache.last_hit_at on the engine clock';

create trigger scene_cache_stamp before insert on mdame.scene_cache
  for each row execute function mdame.stamp_scene_cache_entry();
