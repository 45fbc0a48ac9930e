-- What the Bun workers read instead of pgmq.read: up to p_qty visible messages of a worker queue,
-- oldest first, skipping rows another session is taking, each made invisible for p_vt_s seconds with
-- its read count raised, as pgmq.read does. A message read more often than its stage allows
-- (stage_policies.max_attempts) is not handed out: its worker stopped before reporting every time
-- (killed by the job, say), so it is dead-lettered with that reason, its unit fails and its run
-- closes once nothing else is left. A message whose unit a completion holds right now is skipped
-- (never waited on) and dealt with by a later read. A message handed out starts its unit's stage
-- deadline (media for visual_generation, render for render): the time it waited in the queue never
-- counts against the unit. A unit a completion holds keeps its deadline (it is finishing).

create or replace function mdame.read_worker_jobs(p_queue text, p_vt_s integer, p_qty integer)
returns table(msg_id bigint, read_ct integer, enqueued_at timestamp with time zone, vt timestamp with time zone, message jsonb)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_limit integer;
  v_msg record;
  v_unit mdame.work_units;
  v_unit_id uuid;
begin
  if p_queue not in ('visual_generation', 'render') then
    raise exception 'not a worker queue: %', left(p_queue, 64) using errcode = 'MDS01';
  end if;
  select p.max_attempts into v_limit from mdame.stage_policies p where p.stage = p_queue;
  for v_msg in execute format(
    'with visible as (
       select q.msg_id from pgmq.%1$I q where q.vt <= clock_timestamp() order by q.msg_id limit $1 for update skip locked
     ), claimed as (
       update pgmq.%1$I q set vt = clock_timestamp() + make_interval(secs => $2), read_ct = q.read_ct + 1
         from visible where q.msg_id = visible.msg_id
       returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message
     )
     select * from claimed order by claimed.msg_id', 'q_' || p_queue)
    using p_qty, p_vt_s
  loop
    begin
      v_unit_id := (v_msg.message->>'unit_id')::uuid;
    exception when invalid_text_representation then
      v_unit_id := null;
    end;
    if v_msg.read_ct > v_limit then
      v_unit := null;
      if v_unit_id is not null then
        select * into v_unit from mdame.work_units u where u.id = v_unit_id for update skip locked;
        if v_unit.id is null and exists (select 1 from mdame.work_units u where u.id = v_unit_id) then
          continue;
        end if;
      end if;
      if v_unit.stage in ('published', 'rejected', 'failed') then
        perform pgmq.archive(p_queue, v_msg.msg_id);
        continue;
      end if;
      perform mdame.retry_or_dead_letter(p_queue, p_queue, v_msg.msg_id, v_msg.read_ct, v_msg.message, v_unit.id, v_unit.run_id,
        format('read %s times without a result (limit %s): the worker stopped before reporting each time', v_msg.read_ct, v_limit),
        false);
      if v_unit.id is not null then
        perform mdame.close_run_if_done(v_unit.run_id);
      end if;
      continue;
    end if;
    update mdame.work_units u
       set stage_deadline = clock_timestamp() + make_interval(secs => (mdame.unit_stage_policy(u.stage)).deadline_s)
     where u.id = (select l.id from mdame.work_units l
                    where l.id = v_unit_id and l.stage = case p_queue when 'render' then 'render' else 'media' end
                      for update skip locked);
    msg_id := v_msg.msg_id;
    read_ct := v_msg.read_ct;
    enqueued_at := v_msg.enqueued_at;
    vt := v_msg.vt;
    message := v_msg.message;
    return next;
  end loop;
end;
$$;
