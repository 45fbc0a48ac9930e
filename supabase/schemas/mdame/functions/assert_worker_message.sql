-- Refuses a callback whose message is not the job it reports on: unknown to the queue (MDN01), or
-- naming another unit or scene in its payload (MDS01). Returns whether the message is still queued
-- (false: a completion archived it already, nothing is left to archive).

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
  if v_msg.payload->>'unit_id' is distinct from p_unit_id::text
     or (p_scene_id is not null and v_msg.payload ? 'scene_id' and v_msg.payload->>'scene_id' is distinct from p_scene_id::text) then
    raise exception '% message % is the job of another % (unit %)', p_queue, p_msg_id,
      case when p_scene_id is null then 'unit' else 'scene' end, left(coalesce(v_msg.payload->>'unit_id', 'none'), 64)
      using errcode = 'MDS01';
  end if;
  return v_msg.queued;
end;
$$;

comment on function mdame.assert_worker_message(text,bigint,uuid,uuid) is 'internal: checks a worker job message inside the completion RPCs';

revoke all on function mdame.assert_worker_message(text,bigint,uuid,uuid) from public, anon, authenticated;
