create or replace function mdame.complete_render_job(p_msg_id bigint, p_unit_id uuid, p_video jsonb, p_webhook_id text, p_quality jsonb default null::jsonb)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_queued boolean;
  v_library text;
  v_review jsonb;
  v_expires timestamptz;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if p_quality is not null and (jsonb_typeof(p_quality) <> 'object' or coalesce(jsonb_typeof(p_quality->'passed'), '') <> 'boolean') then
    raise exception 'a quality report is an object with a boolean "passed"' using errcode = '22023';
  end if;
  -- A music bed is a track of the library the run's dimension names, never a key elsewhere in the store.
  if jsonb_typeof(p_video->'music') = 'object' then
    select config->'music'->>'library' into v_library
      from mdame.run_dimensions where run_id = v_unit.run_id and dimension_id = v_unit.dimension_id;
    if v_library is null or not starts_with(coalesce(p_video->'music'->>'track_key', ''), v_library || '/') then
      raise exception 'music track % is not in the music library of dimension % (%)', left(coalesce(p_video->'music'->>'track_key', 'none'), 200),
        v_unit.dimension_id, coalesce(v_library, 'it has none') using errcode = 'MDS01';
    end if;
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
  -- A dimension whose run requires review (run_dimensions.config->review) waits for the operator
  -- (docs/guides/review.md): nothing is queued for publishing, so nothing is uploaded or reserved.
  select rd.config->'review' into v_review from mdame.run_dimensions rd where rd.run_id = v_unit.run_id and rd.dimension_id = v_unit.dimension_id;
  if jsonb_typeof(v_review) = 'object' and coalesce((v_review->>'required')::boolean, true) then
    v_expires := mdame.engine_now() + coalesce(v_review->>'expires_after', '24h')::interval;
    insert into mdame.unit_reviews (unit_id, run_id, dimension_id, requested_at, expires_at, on_expiry)
    values (p_unit_id, v_unit.run_id, v_unit.dimension_id, mdame.engine_now(), v_expires, coalesce(v_review->>'on_expiry', 'reject'));
    v_unit := mdame.set_unit_stage(p_unit_id, 'awaiting_review');
    perform mdame.raise_alert('review_waiting', v_unit.dimension_id, 'review_waiting:' || p_unit_id,
      format('A %s video waits for review until %s (then %s): %s', v_unit.dimension_id, mdame.format_utc(v_expires),
             case when v_review->>'on_expiry' = 'publish' then 'published' else 'rejected' end, left(coalesce(v_unit.script->>'title', ''), 200)),
      jsonb_build_object('unit_id', p_unit_id, 'run_id', v_unit.run_id, 'title', v_unit.script->>'title', 'expires_at', v_expires,
                         'on_expiry', coalesce(v_review->>'on_expiry', 'reject'), 'approve', 'mdame review approve ' || p_unit_id,
                         'reject', 'mdame review reject ' || p_unit_id || ' --reason "..."'));
    return v_unit;
  end if;
  v_unit := mdame.set_unit_stage(p_unit_id, 'publish');
  perform mdame.enqueue_stage_task('publish', v_unit.run_id, p_unit_id);
  return v_unit;
end;
$$;
