-- Stage transitions driven by the pipeline Edge Function. Each RPC locks the unit first, checks
-- the expected stage, records the result with the step token, enqueues the next stage and archives
-- the stage_tasks message in the same transaction. A late or repeated call finds the unit past
-- that stage, archives the message and returns the unit unchanged.

create function mdame.record_topics(p_msg_id bigint, p_run_id uuid, p_dimension_id text, p_step_token text, p_topics jsonb, p_rejected jsonb)
returns mdame.run_dimensions
language plpgsql
set search_path = ''
as $$
declare
  v_rd mdame.run_dimensions;
  v_run mdame.pipeline_runs;
  v_limit integer;
  v_used integer;
  v_topic jsonb;
  v_rejected jsonb;
  v_unit_id uuid;
  v_created integer := 0;
begin
  select * into v_rd from mdame.run_dimensions where run_id = p_run_id and dimension_id = p_dimension_id for update;
  if not found then
    raise exception 'run % has no dimension %', p_run_id, p_dimension_id using errcode = 'MDN01';
  end if;
  if v_rd.status <> 'ingesting' then
    perform pgmq.archive('stage_tasks', p_msg_id);
    return v_rd;
  end if;
  select * into v_run from mdame.pipeline_runs where id = p_run_id;

  -- Volume gate: at most daily_limit units per dimension per run date, across all runs of that day.
  select daily_limit into v_limit from mdame.dimensions where id = p_dimension_id;
  select count(*) into v_used
    from mdame.work_units u join mdame.pipeline_runs r on r.id = u.run_id
   where u.dimension_id = p_dimension_id and r.run_date = v_run.run_date;

  for v_topic in select value from jsonb_array_elements(p_topics) loop
    exit when v_used + v_created >= v_limit;
    insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic)
    values (p_run_id, p_dimension_id, v_topic->>'unit_key', v_topic->>'fingerprint', v_topic - 'unit_key' - 'fingerprint')
    on conflict do nothing
    returning id into v_unit_id;
    if v_unit_id is not null then
      v_created := v_created + 1;
      perform mdame.set_unit_stage(v_unit_id, 'script');
      perform mdame.enqueue_stage_task('script', p_run_id, v_unit_id);
      v_unit_id := null;
    end if;
  end loop;

  for v_rejected in select value from jsonb_array_elements(coalesce(p_rejected, '[]'::jsonb)) loop
    insert into mdame.safety_audit_logs (run_id, dimension_id, subject, subject_text, verdict, reasons, classifier)
    values (p_run_id, p_dimension_id, 'topic', v_rejected->>'title', 'rejected', coalesce(v_rejected->'reasons', '[]'::jsonb),
            coalesce(v_rejected->>'classifier', 'unknown'));
  end loop;

  update mdame.run_dimensions
     set status = 'ingested', topics_seen = jsonb_array_length(p_topics) + jsonb_array_length(coalesce(p_rejected, '[]'::jsonb)),
         units_created = v_created, updated_at = now()
   where run_id = p_run_id and dimension_id = p_dimension_id
  returning * into v_rd;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('units_created', v_created));
  perform mdame.log_event(p_run_id, null, 'ingest', 'topics_recorded',
    jsonb_build_object('dimension', p_dimension_id, 'created', v_created, 'candidates', jsonb_array_length(p_topics)));
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(p_run_id);
  return v_rd;
end;
$$;

-- Locks a unit and reports whether the caller may complete p_stage: the unit must be at that stage
-- and, when the caller names its lease (p_holder, from claim_stage_tasks), still leased to it.
-- A late call (unit past the stage) archives the message; a stale lease (another claim holds the
-- unit now) leaves the message to its new holder.
create function mdame.lock_unit_at_stage(p_unit_id uuid, p_stage text, p_queue text, p_msg_id bigint, p_holder text,
                                         out unit mdame.work_units, out at_stage boolean)
language plpgsql
set search_path = ''
as $$
begin
  select * into unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  at_stage := unit.stage = p_stage;
  if at_stage and p_holder is not null and unit.lease_holder is distinct from p_holder then
    at_stage := false;
    perform mdame.log_event(unit.run_id, unit.id, p_stage, 'stale_lease_refused', jsonb_build_object('caller', p_holder, 'holder', unit.lease_holder));
    return;
  end if;
  if not at_stage and p_msg_id is not null then
    perform pgmq.archive(p_queue, p_msg_id);
  end if;
end;
$$;

create function mdame.record_script(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_script jsonb, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'script', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set script = p_script where id = p_unit_id;
  perform mdame.store_step_result(p_step_token, p_script);
  v_unit := mdame.set_unit_stage(p_unit_id, 'safety');
  perform mdame.enqueue_stage_task('safety', v_unit.run_id, p_unit_id);
  perform pgmq.archive('stage_tasks', p_msg_id);
  return v_unit;
end;
$$;

create function mdame.record_safety_verdict(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_allowed boolean, p_reasons jsonb, p_classifier text, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'safety', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;
  insert into mdame.safety_audit_logs (run_id, unit_id, dimension_id, subject, subject_text, verdict, reasons, classifier)
  values (v_unit.run_id, v_unit.id, v_unit.dimension_id, 'script', coalesce(v_unit.script->>'narration', ''),
          case when p_allowed then 'allowed' else 'rejected' end, coalesce(p_reasons, '[]'::jsonb), p_classifier);
  perform mdame.store_step_result(p_step_token, jsonb_build_object('allowed', p_allowed, 'reasons', p_reasons));
  if p_allowed then
    v_unit := mdame.set_unit_stage(p_unit_id, 'plan');
    perform mdame.enqueue_stage_task('plan', v_unit.run_id, p_unit_id);
  else
    v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', 'rejected by the safety classifier');
  end if;
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;

-- Stores the scene plan; scenes whose hash is cached are ready at once, the rest become
-- visual_generation jobs. The voice task is enqueued alongside: both feed the render.
create function mdame.record_scene_plan(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_scenes jsonb, p_visual jsonb, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_scene jsonb;
  v_scene_id uuid;
  v_cached text;
  v_msg_id bigint;
  v_job jsonb;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'plan', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;

  for v_scene in select value from jsonb_array_elements(p_scenes) order by (value->>'index')::integer loop
    select asset_key into v_cached from mdame.scene_cache where scene_hash = v_scene->>'scene_hash';
    insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit)
    values (p_unit_id, (v_scene->>'index')::integer, v_scene->>'prompt', v_scene->>'narration', (v_scene->>'first_word')::integer,
            (v_scene->>'duration_s')::numeric, v_scene->>'scene_hash',
            case when v_cached is null then 'queued' else 'ready' end, v_cached, v_cached is not null)
    returning id into v_scene_id;
    if v_cached is null then
      v_job := jsonb_build_object(
        'run_id', v_unit.run_id, 'unit_id', p_unit_id, 'scene_id', v_scene_id, 'scene_index', (v_scene->>'index')::integer,
        'scene_hash', v_scene->>'scene_hash', 'dimension_id', v_unit.dimension_id, 'prompt', v_scene->>'prompt',
        'style', p_visual->'style', 'duration_s', (v_scene->>'duration_s')::numeric,
        'width', (p_visual->>'width')::integer, 'height', (p_visual->>'height')::integer, 'fps', (p_visual->>'fps')::integer);
      v_job := v_job || jsonb_build_object('step_token', mdame.step_token(v_scene_id::text, mdame.stage_index('visual_generation'), v_job));
      select pgmq.send('visual_generation', v_job) into v_msg_id;
      update mdame.scenes set msg_id = v_msg_id, job = v_job where id = v_scene_id;
    end if;
  end loop;

  perform mdame.store_step_result(p_step_token, jsonb_build_object('scenes', p_scenes, 'visual', p_visual));
  v_unit := mdame.set_unit_stage(p_unit_id, 'media');
  perform mdame.enqueue_stage_task('voice', v_unit.run_id, p_unit_id);
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'plan', 'scenes_planned', jsonb_build_object(
    'scenes', jsonb_array_length(p_scenes),
    'cached', (select count(*) from mdame.scenes where unit_id = p_unit_id and cache_hit)));
  return v_unit;
end;
$$;

-- p_scene_first_words: the index of each scene's first word in the synthesised words, in scene order.
create function mdame.record_voice(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_voice jsonb, p_scene_first_words jsonb, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'media', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  if (v_lock.unit).voice is not null then
    perform pgmq.archive('stage_tasks', p_msg_id);
    return v_lock.unit;
  end if;
  update mdame.work_units set voice = p_voice, updated_at = now() where id = p_unit_id;
  update mdame.scenes s set first_word = (p_scene_first_words->>s.scene_index)::integer
   where s.unit_id = p_unit_id and p_scene_first_words->>s.scene_index is not null;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('voice', p_voice, 'scene_first_words', p_scene_first_words));
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.log_event((v_lock.unit).run_id, p_unit_id, 'voice', 'voice_recorded',
    jsonb_build_object('provider', p_voice->>'provider', 'duration_ms', p_voice->'duration_ms'));
  return mdame.enqueue_render_if_ready(p_unit_id);
end;
$$;

-- A failed stage task: retried after the backoff while attempts remain, else dead-lettered (its
-- unit fails; for an ingest task, the run's dimension fails).
create function mdame.fail_stage_task(p_msg_id bigint, p_stage text, p_unit_id uuid, p_run_id uuid, p_dimension_id text, p_error text, p_retriable boolean,
                                      p_holder text default null)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_msg record;
  v_unit mdame.work_units;
  v_outcome text;
begin
  if p_unit_id is not null then
    select * into v_unit from mdame.work_units where id = p_unit_id for update;
  end if;
  select msg_id, read_ct, message into v_msg from pgmq.q_stage_tasks where msg_id = p_msg_id for update;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  if v_unit.stage in ('published', 'rejected', 'failed') then
    perform pgmq.archive('stage_tasks', p_msg_id);
    return 'gone';
  end if;
  if p_holder is not null and v_unit.id is not null and v_unit.lease_holder is distinct from p_holder then
    return 'stale';
  end if;
  v_outcome := mdame.retry_or_dead_letter('stage_tasks', p_stage, p_msg_id, v_msg.read_ct, v_msg.message,
                                          p_unit_id, p_run_id, p_error, p_retriable);
  if v_outcome = 'dead_letter' and p_unit_id is null and p_dimension_id is not null then
    update mdame.run_dimensions set status = 'failed', updated_at = now()
     where run_id = p_run_id and dimension_id = p_dimension_id and status = 'ingesting';
  end if;
  if v_outcome = 'dead_letter' and p_run_id is not null then
    perform mdame.close_run_if_done(p_run_id);
  end if;
  return v_outcome;
end;
$$;

-- Ends a unit as rejected at its current stage (hook audit failed, topic unusable), archiving the task.
create function mdame.reject_unit(p_msg_id bigint, p_unit_id uuid, p_stage text, p_step_token text, p_reason text, p_holder text default null)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, p_stage, 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('rejected', p_reason));
  v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', p_reason);
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
