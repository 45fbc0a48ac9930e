-- Captions per platform and the quality gate's measures.
--   * dimensions.captions: which platform UI the burned-in captions keep clear of
--     ({"profile": "intersection" | "youtube_shorts" | "tiktok" | "reels"}, default intersection),
--     carried to the render-runner in each render job as caption_profile.
--   * work_units.quality: the quality gate's report on the unit's video (loudness, true peak,
--     duration, format, black/frozen stretches, captions in the safe zone), stored by
--     complete_render_job with the video and shown in the run status.

alter table mdame.dimensions
  add column captions jsonb not null default '{"profile": "intersection"}'::jsonb,
  add constraint dimensions_captions_check
    check (jsonb_typeof(captions) = 'object'
           and captions - 'profile' = '{}'::jsonb
           and coalesce(captions->>'profile', '') in ('intersection', 'youtube_shorts', 'tiktok', 'reels'));

alter table mdame.work_units
  add column quality jsonb,
  add constraint work_units_quality_check
    check (quality is null or (jsonb_typeof(quality) = 'object' and coalesce(jsonb_typeof(quality->'passed'), '') = 'boolean'));

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
                                daily_limit, narration_min_words, narration_max_words, captions)
  values (p_config->>'id', p_config->>'display_name', p_config->>'language', p_config->>'tts_voice',
          coalesce(p_config->>'tts_rate', '+0%'), p_config->>'trend_geo', p_config->'style',
          coalesce(p_config->'safety_profile', '{"blocked_terms": []}'::jsonb),
          coalesce((p_config->>'daily_limit')::integer, 1),
          coalesce((p_config->>'narration_min_words')::integer, 95),
          coalesce((p_config->>'narration_max_words')::integer, 150),
          coalesce(p_config->'captions', '{"profile": "intersection"}'::jsonb))
  on conflict (id) do nothing
  returning * into v_row;
  if v_row.id is null then
    raise exception 'dimension % already exists (change it with `mdame dimension set`)', p_config->>'id' using errcode = 'MDS01';
  end if;
  return v_row;
end;
$$;

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
    captions = coalesce(p_config->'captions', d.captions)
   where d.id = p_id
  returning * into v_row;
  -- updated_at moves only when something did, so a repeated `set` reads as no change.
  if (to_jsonb(v_row) - 'updated_at') is distinct from (to_jsonb(v_old) - 'updated_at') then
    update mdame.dimensions set updated_at = now() where id = p_id returning * into v_row;
  end if;
  return v_row;
end;
$$;

-- The render job of a unit, built from its stored voice and scenes and its dimension's caption
-- settings; the same state always gives the same message (and so the same step token).
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
    'caption_font', coalesce(v_dimension.style->>'caption_font', 'DejaVu Sans'),
    'caption_profile', coalesce(v_dimension.captions->>'profile', 'intersection'));
  return v_job || jsonb_build_object('step_token', mdame.step_token(v_unit.id::text, mdame.stage_index('render'), v_job));
end;
$$;

-- The quality report travels beside the video: a new trailing parameter, so the old four-argument
-- form goes (two overloads would make a four-argument call ambiguous).
drop function mdame.complete_render_job(bigint, uuid, jsonb, text);

create function mdame.complete_render_job(p_msg_id bigint, p_unit_id uuid, p_video jsonb, p_webhook_id text, p_quality jsonb default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_queued boolean;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if p_quality is not null and (jsonb_typeof(p_quality) <> 'object' or coalesce(jsonb_typeof(p_quality->'passed'), '') <> 'boolean') then
    raise exception 'a quality report is an object with a boolean "passed"' using errcode = '22023';
  end if;
  if not mdame.record_webhook(p_webhook_id, 'render.completed') then
    return v_unit;
  end if;
  v_queued := mdame.assert_worker_message('render', p_msg_id, p_unit_id);
  -- A late call (the unit moved on) archives the unit's own job, if it is still queued.
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'render', 'render', case when v_queued then p_msg_id end, null);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set video = p_video, quality = p_quality where id = p_unit_id;
  if v_queued then
    perform pgmq.archive('render', p_msg_id);
  end if;
  v_unit := mdame.set_unit_stage(p_unit_id, 'publish');
  perform mdame.enqueue_stage_task('publish', v_unit.run_id, p_unit_id);
  return v_unit;
end;
$$;

create or replace function mdame.get_run_status(p_run_id uuid)
returns jsonb
language sql
stable
set search_path = ''
as $$
  select jsonb_build_object(
    'run', to_jsonb(r) - 'idempotency_key',
    'dimensions', coalesce((select jsonb_agg(to_jsonb(rd) - 'run_id' order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = r.id), '[]'::jsonb),
    'units', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', u.id, 'dimension_id', u.dimension_id, 'stage', u.stage, 'title', coalesce(u.script->>'title', u.topic->>'title'),
        'error', u.error, 'updated_at', u.updated_at,
        'scenes_ready', (select count(*) from mdame.scenes s where s.unit_id = u.id and s.status = 'ready'),
        'scenes_total', (select count(*) from mdame.scenes s where s.unit_id = u.id),
        'video', u.video,
        'quality', u.quality,
        'publications', coalesce((select jsonb_agg(jsonb_build_object('platform', p.platform, 'status', p.status, 'external_id', p.external_id))
                                    from mdame.publications p where p.unit_id = u.id), '[]'::jsonb)
      ) order by u.dimension_id, u.created_at)
      from mdame.work_units u where u.run_id = r.id), '[]'::jsonb))
  from mdame.pipeline_runs r
  where r.id = p_run_id;
$$;

select mdame.restrict_function_privileges();
