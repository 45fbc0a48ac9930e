-- The units whose video (p_asset 'video', key video_key) or voice track (p_asset 'voice', key
-- audio_key) housekeeping may release: the unit was published, the asset is held and not yet
-- released, none of its publications is pending, uploading or deferred (nor, for a video, waits
-- for its thumbnail to be set), and the last one was
-- confirmed published before p_cutoff. One rule for the renders and the voices of mdame.housekeeping.

create or replace function mdame.published_assets_due(p_asset text, p_cutoff timestamptz)
returns setof uuid
language sql
stable
set search_path = ''
as $$
  select u.id
    from mdame.work_units u
   where u.stage = 'published'
     and case p_asset
           when 'video' then u.video ? 'video_key' and not (u.video ? 'deleted_at')
           when 'voice' then u.voice ? 'audio_key' and not (u.voice ? 'deleted_at')
         end
     and not exists (select 1 from mdame.publications p where p.unit_id = u.id and p.status = any (array['pending', 'uploading', 'deferred']))
     -- A cover still to be set as a thumbnail keeps the render (and the cover beside it).
     and (p_asset <> 'video' or not exists (select 1 from mdame.publications p join mdame.thumbnail_sets t on t.publication_id = p.id
                                             where p.unit_id = u.id and t.status = 'queued'))
     and (select max(p.published_at) from mdame.publications p where p.unit_id = u.id and p.status = 'published') < p_cutoff;
$$;

comment on function mdame.published_assets_due(text, timestamptz) is 'internal: the renders and voices rule of housekeeping';
