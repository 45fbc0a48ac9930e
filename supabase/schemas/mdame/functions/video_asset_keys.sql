-- The Storage keys a unit's render holds (work_units.video): the video and, when the render-runner
-- made one, its cover image beside it. The one list housekeeping, abort_run and storage_key_in_use
-- release and protect together.

create or replace function mdame.video_asset_keys(p_video jsonb)
returns text[]
language sql
immutable
set search_path = ''
as $$
  select array(select k from unnest(array[p_video->>'video_key', p_video->>'cover_key']) k where k is not null);
$$;

comment on function mdame.video_asset_keys(jsonb) is 'internal: the Storage keys of a unit''s render (the video and its cover)';
