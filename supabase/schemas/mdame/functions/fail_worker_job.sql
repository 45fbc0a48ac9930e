-- A worker reported a failed job: retried after the backoff while attempts remain, else the
-- message is dead-lettered and the unit fails. The job of a unit that is over is archived. A
-- visual_generation failure names its scene: a message that is the job of another unit or scene
-- (assert_worker_job_owner) is refused and left alone. Answers the outcome with the unit's run and
-- dimension, the fields the callback's log lines carry, so the caller reads nothing else for them.

create or replace function mdame.fail_worker_job(p_queue text, p_msg_id bigint, p_unit_id uuid, p_error text, p_retriable boolean, p_webhook_id text, p_scene_id uuid default null::uuid)
returns table (outcome text, run_id uuid, dimension_id text)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_msg record;
  v_unit mdame.work_units;
  v_outcome text;
begin
  if p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  if p_queue = 'visual_generation' and p_scene_id is null then
    raise exception 'a visual_generation failure names its scene (scene_id)' using errcode = '22023';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if p_scene_id is not null and not exists (select 1 from mdame.scenes where id = p_scene_id) then
    raise exception 'no scene %', p_scene_id using errcode = 'MDN01';
  end if;
  run_id := v_unit.run_id;
  dimension_id := v_unit.dimension_id;
  if not mdame.record_webhook(p_webhook_id, p_queue || '.failed') then
    outcome := 'duplicate';
    return next;
    return;
  end if;
  execute format('select msg_id, read_ct, message from pgmq.%I where msg_id = $1 for update', 'q_' || p_queue) into v_msg using p_msg_id;
  if v_msg.msg_id is null then
    outcome := 'gone';
    return next;
    return;
  end if;
  perform mdame.assert_worker_job_owner(p_queue, p_msg_id, v_msg.message, p_unit_id, p_scene_id);
  if v_unit.stage in ('published', 'rejected', 'failed') then
    perform pgmq.archive(p_queue, p_msg_id);
    outcome := 'gone';
    return next;
    return;
  end if;
  v_outcome := mdame.retry_or_dead_letter(p_queue, p_queue, p_msg_id, v_msg.read_ct, v_msg.message,
                                          p_unit_id, v_unit.run_id, p_error, p_retriable);
  if v_outcome = 'dead_letter' then
    perform mdame.close_run_if_done(v_unit.run_id);
  end if;
  outcome := v_outcome;
  return next;
end;
$$;
