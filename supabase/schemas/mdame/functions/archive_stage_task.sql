-- Moves a stage task to the archive, as pgmq.archive('stage_tasks', id) does; false when it is not queued.

create or replace function mdame.archive_stage_task(p_msg_id bigint)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  if mdame.pgmq_queue_has_headers('stage_tasks') then
    with moved as (
      delete from pgmq.q_stage_tasks where msg_id = p_msg_id
      returning msg_id, read_ct, enqueued_at, vt, message, headers
    )
    insert into pgmq.a_stage_tasks (msg_id, read_ct, enqueued_at, vt, message, headers)
    select msg_id, read_ct, enqueued_at, vt, message, headers from moved;
  else
    with moved as (
      delete from pgmq.q_stage_tasks where msg_id = p_msg_id
      returning msg_id, read_ct, enqueued_at, vt, message
    )
    insert into pgmq.a_stage_tasks (msg_id, read_ct, enqueued_at, vt, message)
    select msg_id, read_ct, enqueued_at, vt, message from moved;
  end if;
  return found;
end;
$$;

comment on function mdame.archive_stage_task(bigint) is 'internal: archives a stage task without checking its holder';
