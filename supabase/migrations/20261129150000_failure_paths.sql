-- Failure paths the per-RPC pgTAP matrix found short of their contract:
--   * fail_worker_job left a dead unit's job queued, so a worker repeated GPU or FFmpeg work for a
--     unit that was already over until the read limit;
--   * fail_stage_task checked the caller's lease only for tasks with a unit, so a superseded claim
--     of an ingest task could retry or dead-letter the task its current holder was working on;
--   * retry_dead_letter reopened a run an operator had rolled back, after its assets were released.
-- (A stage task whose runner died before reporting, every time, is dead-lettered by
-- claim_stage_tasks at its read limit: 20261129120000_transition_throughput.sql.)

-- A failed stage task: retried after the backoff while attempts remain, else dead-lettered (its
-- unit fails; for an ingest task, the run's dimension fails). A caller naming a claim that is no
-- longer current gets 'stale' and changes nothing; a task that is gone, or whose unit is over, 'gone'.
create or replace function mdame.fail_stage_task(p_msg_id bigint, p_stage text, p_unit_id uuid, p_run_id uuid, p_dimension_id text, p_error text, p_retriable boolean,
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
    perform mdame.archive_stage_task(p_msg_id);
    return 'gone';
  end if;
  if p_holder is not null and (not mdame.holds_stage_claim(p_holder, p_msg_id, v_msg.read_ct)
                               or (v_unit.id is not null and v_unit.lease_holder is distinct from p_holder)) then
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

-- A worker reported a failed job: retried after the backoff while attempts remain, else the
-- message is dead-lettered and the unit fails. The job of a unit that is over is archived.
create or replace function mdame.fail_worker_job(p_queue text, p_msg_id bigint, p_unit_id uuid, p_error text, p_retriable boolean, p_webhook_id text)
returns text
language plpgsql
set search_path = ''
as $$
declare
  v_msg record;
  v_unit mdame.work_units;
  v_outcome text;
begin
  if p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', p_queue using errcode = 'MDS01';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if not mdame.record_webhook(p_webhook_id, p_queue || '.failed') then
    return 'duplicate';
  end if;
  execute format('select msg_id, read_ct, message from pgmq.%I where msg_id = $1 for update', 'q_' || p_queue) into v_msg using p_msg_id;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  if v_unit.stage in ('published', 'rejected', 'failed') then
    perform pgmq.archive(p_queue, p_msg_id);
    return 'gone';
  end if;
  v_outcome := mdame.retry_or_dead_letter(p_queue, p_queue, p_msg_id, v_msg.read_ct, v_msg.message,
                                          p_unit_id, v_unit.run_id, p_error, p_retriable);
  if v_outcome = 'dead_letter' then
    perform mdame.close_run_if_done(v_unit.run_id);
  end if;
  return v_outcome;
end;
$$;

-- Sends a dead letter's payload back to its queue once, putting its unit (and, if closed, its run)
-- back to where the work left off. A run an operator rolled back stays rolled back: its unpublished
-- assets were released, so its work is started again by a new run, not by a retry.
create or replace function mdame.retry_dead_letter(p_id bigint)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  v_dl mdame.dead_letters;
  v_unit mdame.work_units;
  v_run mdame.pipeline_runs;
  v_stage text;
  v_msg_id bigint;
begin
  select * into v_dl from mdame.dead_letters where id = p_id for update;
  if not found then
    raise exception 'no dead letter %', p_id using errcode = 'MDN01';
  end if;
  if v_dl.retried_at is not null then
    raise exception 'dead letter % was already retried as message %', p_id, v_dl.retried_msg_id using errcode = 'MDS01';
  end if;
  select * into v_run from mdame.pipeline_runs where id = (v_dl.payload->>'run_id')::uuid for no key update;
  if not found then
    raise exception 'dead letter % names no run', p_id using errcode = 'MDS01';
  end if;
  if v_run.status = 'rolled_back' then
    raise exception 'run % was rolled back by an operator; start a new run instead of retrying its dead letter %', v_run.id, p_id
      using errcode = 'MDS01';
  end if;
  if v_dl.unit_id is not null then
    select * into v_unit from mdame.work_units where id = v_dl.unit_id for update;
    if v_unit.stage = 'published' then
      raise exception 'unit % is already published', v_unit.id using errcode = 'MDS01';
    end if;
  end if;
  if v_run.status <> 'running' then
    perform mdame.acquire_lock('pipeline:' || v_run.env, v_run.id::text, 3600);
    update mdame.pipeline_runs set status = 'running', error = null, finished_at = null, updated_at = now() where id = v_run.id;
  end if;

  v_stage := case v_dl.queue_name when 'visual_generation' then 'media' when 'render' then 'render' else v_dl.payload->>'stage' end;
  if v_dl.unit_id is not null then
    update mdame.work_units set error = null where id = v_dl.unit_id;
    perform mdame.set_unit_stage(v_dl.unit_id, v_stage);
    if v_dl.queue_name = 'visual_generation' then
      update mdame.scenes set status = 'queued' where id = (v_dl.payload->>'scene_id')::uuid and status <> 'ready';
    end if;
  elsif v_stage = 'ingest' then
    update mdame.run_dimensions set status = 'ingesting', updated_at = now()
     where run_id = v_run.id and dimension_id = v_dl.payload->>'dimension_id';
  end if;
  select pgmq.send(v_dl.queue_name, v_dl.payload) into v_msg_id;
  if v_dl.queue_name = 'visual_generation' then
    update mdame.scenes set msg_id = v_msg_id where id = (v_dl.payload->>'scene_id')::uuid;
  end if;
  if v_dl.queue_name = 'stage_tasks' then
    perform mdame.wake_stage_runner('dead_letter_retry');
  end if;
  update mdame.dead_letters set retried_at = now(), retried_msg_id = v_msg_id where id = p_id;
  perform mdame.log_event(v_run.id, v_dl.unit_id, v_stage, 'dead_letter_retried', jsonb_build_object('dead_letter', p_id, 'msg_id', v_msg_id));
  return jsonb_build_object('dead_letter_id', p_id, 'queue_name', v_dl.queue_name, 'msg_id', v_msg_id,
                            'unit_id', v_dl.unit_id, 'run_id', v_run.id);
end;
$$;

select mdame.restrict_function_privileges();
