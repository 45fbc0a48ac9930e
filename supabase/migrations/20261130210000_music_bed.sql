-- An optional music bed per dimension, and the track (with its licence) each video carries.
-- The bed's configuration is validated by its Zod contract (shared/contracts/dimension.ts,
-- MusicBed) before it gets here; the check below holds the same bounds. Existing dimensions keep
-- null: voice only, as before.

alter table mdame.dimensions
  add column music jsonb,
  add constraint dimensions_music_check check (
    music is null or (
      jsonb_typeof(music) = 'object'
      and (music - array['library', 'gain_db', 'duck_db', 'fade_s']) = '{}'::jsonb
      -- Each cast is guarded by its type test: a check must fail, not raise, on a wrong type.
      and case when jsonb_typeof(music->'library') = 'string'
               then length(music->>'library') <= 200 and music->>'library' ~ '^[a-z0-9_-]+(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$'
               else false end
      and case when jsonb_typeof(music->'gain_db') = 'number' then (music->>'gain_db')::numeric between -40 and 0 else false end
      and case when jsonb_typeof(music->'duck_db') = 'number' then (music->>'duck_db')::numeric between 0 and 30 else false end
      and case when jsonb_typeof(music->'fade_s') = 'number' then (music->>'fade_s')::numeric between 0 and 5 else false end
    )
  );
comment on column mdame.dimensions.music is
  'Music bed: {library (storage prefix of tracks with <track>.license.json sidecars), gain_db, duck_db, fade_s}; null for voice only.';

-- The render reports the bed it used in its video (render.completed -> complete_render_job stores
-- the whole video object); this column keeps it queryable for licence audits without parsing.
alter table mdame.work_units
  add column video_music jsonb generated always as (video->'music') stored;
comment on column mdame.work_units.video_music is
  'The music track of the video and its licence (track_key, license_key, title, author, license, source_url); null without a bed.';

select mdame.restrict_function_privileges();
