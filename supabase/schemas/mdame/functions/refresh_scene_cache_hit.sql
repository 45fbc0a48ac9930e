-- Pushes a scene cache entry's expiry when a scene takes its clip from the cache: record_scene_plan's
-- hit, or a worker's claim that found the entry (reported as cache_hit by complete_visual_job).
-- last_hit_at is on the engine's clock, as housekeeping's cutoff is.

create or replace function mdame.refresh_scene_cache_hit()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.cache_hit and new.asset_key is not null then
    update mdame.scene_cache c set last_hit_at = mdame.engine_now()
     where c.asset_key = new.asset_key and c.last_hit_at < mdame.engine_now();
  end if;
  return null;
end;
$$;

comment on function mdame.refresh_scene_cache_hit() is 'internal: trigger pushing a scene cache entry''s expiry when a scene hits it';

create trigger scenes_scene_cache_hit after insert or update of asset_key, cache_hit on mdame.scenes
  for each row execute function mdame.refresh_scene_cache_hit();
