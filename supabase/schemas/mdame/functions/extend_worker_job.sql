-- A pull worker's heartbeat: pgmq.set_vt on the worker queues only (the stage queue has its own,
-- lease-checked extend_stage_lease). No row means the message is gone (completed or dead-lettered).
-- A heartbeat that names the job's owner (the unit, and the scene of a visual_generation job) is
-- refused with MDS01 when the message is the job of another (assert_worker_job_owner), and the
-- job keeps its visibility timeout.

create or replace function mdame.extend_worker_job(p_queue text, p_msg_id bigint, p_vt_s integer, p_unit_id uuid default null::uuid, p_scene_id uuid default null::uuid)
returns setof bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_msg record;
begin
  if p_queue is null or p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', p_queue using errcode = '22023';
  end if;
  if p_vt_s is null or p_vt_s < 1 or p_vt_s > 86400 then
    raise exception 'visibility timeout out of range (1-86400 s): %', p_vt_s using errcode = '22023';
  end if;
  if p_unit_id is null and p_scene_id is not null then
    raise exception 'a heartbeat that names a scene names its unit too' using errcode = '22023';
  end if;
  if p_unit_id is not null then
    select * into v_msg from mdame.worker_message(p_queue, p_msg_id);
    if not v_msg.queued then
      return;
    end if;
    perform mdame.assert_worker_job_owner(p_queue, p_msg_id, v_msg.payload, p_unit_id, p_scene_id);
  end if;
  return query select s.msg_id from pgmq.set_vt(p_queue, p_msg_id, p_vt_s) s;
end;
$$;
