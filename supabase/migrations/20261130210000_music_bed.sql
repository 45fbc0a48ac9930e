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

-- As before, plus the music bed (absent or JSON null: none).
create or replace function mdame.create_dimension(p_config jsonb)
returns mdame.dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_row mdame.dimensions;
begin
  if p_config is null or jsonb_typeof(p_config) <> 'object' or coalesce(p_config->>'id', '') = '' then
    raise exception 'a dimension configuration needs an id' using errcode = '22023';
  end if;
  -- The insert is the lock: a concurrent create of the same id waits on the unique index and then
  -- finds the row taken.
  insert into mdame.dimensions (id, display_name, language, tts_voice, tts_rate, trend_geo, style, safety_profile,
                                daily_limit, narration_min_words, narration_max_words, music)
  values (p_config->>'id', p_config->>'display_name', p_config->>'language', p_config->>'tts_voice',
          coalesce(p_config->>'tts_rate', '+0%'), p_config->>'trend_geo', p_config->'style',
          coalesce(p_config->'safety_profile', '{"blocked_terms": []}'::jsonb),
          coalesce((p_config->>'daily_limit')::integer, 1),
          coalesce((p_config->>'narration_min_words')::integer, 95),
          coalesce((p_config->>'narration_max_words')::integer, 150),
          nullif(p_config->'music', 'null'::jsonb))
  on conflict (id) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'dimension % already exists (change it with `mdame dimension set`)', p_config->>'id' using errcode = 'MDS01';
  end if;
  return v_row;
end;
$$;

-- As before, plus the music bed: a config naming `music` sets it (JSON null removes it); one that
-- leaves it out keeps the stored bed.
create or replace function mdame.update_dimension(p_id text, p_config jsonb)
returns mdame.dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_old mdame.dimensions;
  v_row mdame.dimensions;
begin
  select * into v_old from mdame.dimensions where id = p_id for update;
  if v_old.id is null then
    raise exception 'no dimension %', p_id using errcode = 'MDN01';
  end if;
  if p_config is null or jsonb_typeof(p_config) <> 'object' then
    raise exception 'a dimension configuration is a JSON object' using errcode = '22023';
  end if;
  if p_config ? 'id' and p_config->>'id' <> p_id then
    raise exception 'a dimension''s id cannot change (% -> %)', p_id, p_config->>'id' using errcode = 'MDS01';
  end if;
  update mdame.dimensions d set
    display_name = coalesce(p_config->>'display_name', d.display_name),
    language = coalesce(p_config->>'language', d.language),
    tts_voice = coalesce(p_config->>'tts_voice', d.tts_voice),
    tts_rate = coalesce(p_config->>'tts_rate', d.tts_rate),
    trend_geo = coalesce(p_config->>'trend_geo', d.trend_geo),
    style = coalesce(p_config->'style', d.style),
    safety_profile = coalesce(p_config->'safety_profile', d.safety_profile),
    daily_limit = coalesce((p_config->>'daily_limit')::integer, d.daily_limit),
    narration_min_words = coalesce((p_config->>'narration_min_words')::integer, d.narration_min_words),
    narration_max_words = coalesce((p_config->>'narration_max_words')::integer, d.narration_max_words),
    music = case when p_config ? 'music' then nullif(p_config->'music', 'null'::jsonb) else d.music end
   where d.id = p_id
  returning * into v_row;
  -- updated_at moves only when something did, so a repeated `set` reads as no change.
  if (to_jsonb(v_row) - 'updated_at') is distinct from (to_jsonb(v_old) - 'updated_at') then
    update mdame.dimensions set updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;

-- As before, plus the dimension's music bed when it has one. Without one the job has no `music`
-- key at all, so the jobs (and step tokens) of voice-only dimensions are what they were.
create or replace function mdame.render_job(p_unit_id uuid)
returns jsonb
language plpgsql
stable
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_dimension mdame.dimensions;
  v_job jsonb;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id;
  select * into v_dimension from mdame.dimensions where id = v_unit.dimension_id;
  v_job := jsonb_build_object(
    'run_id', v_unit.run_id, 'unit_id', v_unit.id, 'dimension_id', v_unit.dimension_id,
    'title', v_unit.script->>'title',
    'audio_key', v_unit.voice->>'audio_key', 'audio_duration_ms', (v_unit.voice->>'duration_ms')::integer,
    'words', v_unit.voice->'words',
    'scenes', (select jsonb_agg(jsonb_build_object('index', s.scene_index, 'asset_key', s.asset_key, 'first_word', s.first_word) order by s.scene_index)
                 from mdame.scenes s where s.unit_id = p_unit_id),
    'caption_font', coalesce(v_dimension.style->>'caption_font', 'DejaVu Sans'));
  if v_dimension.music is not null then
    v_job := v_job || jsonb_build_object('music', v_dimension.music);
  end if;
  return v_job || jsonb_build_object('step_token', mdame.step_token(v_unit.id::text, mdame.stage_index('render'), v_job));
end;
$$;

select mdame.restrict_function_privileges();
