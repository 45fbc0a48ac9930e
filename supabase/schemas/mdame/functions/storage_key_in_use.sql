-- Whether anything may still read the Storage object at p_key: keys are content-addressed and may
-- be shared, so a key housekeeping let go for one row survives while any of these holds it:
-- a scene cache entry; a scene of a live (non-terminal) unit; a generation claim still leased
-- whose worker stores the clip at that key (it may be uploading it; any backend's key form); a unit's voice track (or its word timings) or
-- video (or its cover) not yet released by housekeeping (voice/video without deleted_at); a publication not yet
-- confirmed (pending, uploading, deferred). PL/pgSQL: the declared schema creates it before
-- video_asset_keys, which a SQL body would need to exist.

create or replace function mdame.storage_key_in_use(p_key text)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
begin
  return exists (select 1 from mdame.scene_cache c where c.asset_key = p_key)
      or exists (select 1 from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                  where s.asset_key = p_key and u.stage <> all (array['published', 'rejected', 'failed']))
      or exists (select 1 from mdame.scene_generation_claims g
                  where p_key = coalesce(g.asset_key, 'scenes/' || g.scene_hash || '.mp4') and g.lease_until > clock_timestamp())
      or exists (select 1 from mdame.work_units u
                  where u.voice is not null and not (u.voice ? 'deleted_at')
                    and p_key in (u.voice->>'audio_key', regexp_replace(u.voice->>'audio_key', '\.[^./]*$', '') || '.json'))
      or exists (select 1 from mdame.work_units u
                  where u.video is not null and not (u.video ? 'deleted_at') and p_key = any (mdame.video_asset_keys(u.video)))
      or exists (select 1 from mdame.publications p
                  where p.video_key = p_key and p.status = any (array['pending', 'uploading', 'deferred']));
end;
$$;

comment on function mdame.storage_key_in_use(text) is 'internal: whether a Storage key is still needed, for housekeeping and the deletion outbox';
