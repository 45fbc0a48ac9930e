-- Refuses a callback whose message is not the job it reports on: unknown to the queue (MDN01), or
-- the job of another unit or scene (MDS01, assert_worker_job_owner). Returns whether the message is
-- still queued (false: a completion archived it already, nothing is left to archive).

create or replace function mdame.assert_worker_message(p_queue text, p_msg_id bigint, p_unit_id uuid, p_scene_id uuid default null::uuid)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
declare
  v_msg record;
begin
  select * into v_msg from mdame.worker_message(p_queue, p_msg_id);
  if not v_msg.found_any then
    raise exception 'no % message %', p_queue, p_msg_id using errcode = 'MDN01';
  end if;
  perform mdame.assert_worker_job_owner(p_queue, p_msg_id, v_msg.payload, p_unit_id, p_scene_id);
  return v_msg.queued;
end;
$$;

comment on function mdame.assert_worker_message(text,bigint,uuid,uuid) is 'internal: checks a worker job message inside the completion RPCs';
