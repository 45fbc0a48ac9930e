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
