-- The payload of a worker queue's message, looked up in the queue and then in its archive (a
-- message a completion already archived). Found is false when the queue never held it.

create or replace function mdame.worker_message(p_queue text, p_msg_id bigint, out payload jsonb, out queued boolean, out found_any boolean)
returns record
language plpgsql
stable
set search_path = ''
as $$
begin
  if p_queue = 'visual_generation' then
    select q.message into payload from pgmq.q_visual_generation q where q.msg_id = p_msg_id;
    queued := found;
    if not queued then
      select a.message into payload from pgmq.a_visual_generation a where a.msg_id = p_msg_id;
    end if;
  elsif p_queue = 'render' then
    select q.message into payload from pgmq.q_render q where q.msg_id = p_msg_id;
    queued := found;
    if not queued then
      select a.message into payload from pgmq.a_render a where a.msg_id = p_msg_id;
    end if;
  else
    raise exception 'not a worker queue: %', p_queue using errcode = 'MDS01';
  end if;
  found_any := payload is not null;
end;
$$;

comment on function mdame.worker_message(text,bigint) is 'internal: builds a worker job message';
