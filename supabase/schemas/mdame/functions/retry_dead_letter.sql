-- Sends a dead letter's payload back to its queue once, putting its unit (and, if closed, its run)
-- back to where the work left off. A run an operator rolled back stays rolled back: its unpublished
-- assets were released, so its work is started again by a new run, not by a retry.

create or replace function mdame.retry_dead_letter(p_id bigint)
returns jsonb
language plpgsql
security definer
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
