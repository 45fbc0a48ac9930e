-- Where a unit's work in one queue stands: 'leased' when a worker or the stage runner holds a
-- message of it (read, and still invisible), 'waiting' when its messages sit in the queue for a
-- reader (never read, delayed, or back after a lease ran out), null when the queue has none.
-- Found through the queue's index on message->>'unit_id' (migration 20261205100000).

create or replace function mdame.queued_work_state(p_queue text, p_unit_id uuid, p_stage text default null::text)
returns text
language plpgsql
stable
set search_path = ''
as $$
declare
  v text;
begin
  if p_queue not in ('stage_tasks', 'visual_generation', 'render') then
    raise exception 'not a work queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  execute format(
    'select case when bool_or(q.read_ct > 0 and q.vt > clock_timestamp()) then ''leased'' when count(*) > 0 then ''waiting'' end
       from pgmq.%I q where (q.message->>''unit_id'') = $1 and ($2::text is null or q.message->>''stage'' = $2)', 'q_' || p_queue)
    into v using p_unit_id::text, p_stage;
  return v;
end;
$$;

comment on function mdame.queued_work_state(text,uuid,text) is 'internal: the recovery pass''s look at a unit''s queued work';
