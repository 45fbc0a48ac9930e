-- A pull worker's heartbeat: pgmq.set_vt on the worker queues only (the stage queue has its own,
-- lease-checked extend_stage_lease). No row means the message is gone (completed or dead-lettered).

create or replace function mdame.extend_worker_job(p_queue text, p_msg_id bigint, p_vt_s integer)
returns setof bigint
language plpgsql
security definer
set search_path = ''
as $$
begin
  if p_queue is null or p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', p_queue using errcode = '22023';
  end if;
  if p_vt_s is null or p_vt_s < 1 or p_vt_s > 86400 then
    raise exception 'visibility timeout out of range (1-86400 s): %', p_vt_s using errcode = '22023';
  end if;
  return query select s.msg_id from pgmq.set_vt(p_queue, p_msg_id, p_vt_s) s;
end;
$$;

revoke all on function mdame.extend_worker_job(text,bigint,integer) from public, anon, authenticated;
grant execute on function mdame.extend_worker_job(text,bigint,integer) to mdame_engine;
grant execute on function mdame.extend_worker_job(text,bigint,integer) to service_role;
