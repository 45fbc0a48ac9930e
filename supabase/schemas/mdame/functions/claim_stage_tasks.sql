-- Claims up to p_qty visible stage tasks for p_vt_s seconds. Each claim gets its own lease holder
-- (<worker>/<msg_id>/<read_ct>), recorded on the unit: the completion RPCs refuse a caller whose
-- lease another claim has since taken. A claim of the unit's current stage task (voice, at media)
-- starts the unit's stage deadline: time the task waited in the queue never counts against it.

create or replace function mdame.claim_stage_tasks(p_worker text, p_qty integer, p_vt_s integer)
returns table(msg_id bigint, read_ct integer, message jsonb, lease_holder text, completed_result jsonb)
language plpgsql
security definer
set search_path = ''
set plan_cache_mode = 'force_generic_plan'
as $$
#variable_conflict use_column
declare
  v_ids bigint[];
  v_msg record;
  v_holder text;
  v_limit integer;
begin
  select array_agg(s.msg_id) into v_ids from (
    select q.msg_id from pgmq.q_stage_tasks q
     where q.vt <= clock_timestamp()
     order by q.msg_id
     limit p_qty
       for update skip locked) as s;
  if v_ids is null then
    return;
  end if;
  for v_msg in
    with claimed as (
      update pgmq.q_stage_tasks q
         set vt = clock_timestamp() + make_interval(secs => p_vt_s), read_ct = q.read_ct + 1
       where q.msg_id = any (v_ids)
      returning q.msg_id, q.read_ct, q.vt, q.message
    )
    select * from claimed order by claimed.msg_id
  loop
    if v_msg.read_ct > 1 then
      select p.max_attempts into v_limit from mdame.stage_policies p where p.stage = v_msg.message->>'stage';
      if v_msg.read_ct > v_limit then
        begin
          perform mdame.fail_stage_task(v_msg.msg_id, v_msg.message->>'stage', (v_msg.message->>'unit_id')::uuid,
            (v_msg.message->>'run_id')::uuid, v_msg.message->>'dimension_id',
            format('read %s times without a result (limit %s): the runner stopped before reporting each time', v_msg.read_ct, v_limit),
            false);
        exception when invalid_text_representation then
          -- Ids that are not uuids: nothing to fail but the message itself.
          perform mdame.retry_or_dead_letter('stage_tasks', v_msg.message->>'stage', v_msg.msg_id, v_msg.read_ct, v_msg.message,
            null, null, format('read %s times without a result (limit %s), and its ids are not uuids', v_msg.read_ct, v_limit), false);
        end;
        continue;
      end if;
    end if;
    v_holder := p_worker || '/' || v_msg.msg_id || '/' || v_msg.read_ct;
    if v_msg.message ? 'unit_id' then
      update mdame.work_units u
         set lease_holder = v_holder, lease_expires_at = v_msg.vt,
             stage_deadline = case when u.stage = v_msg.message->>'stage' or (u.stage = 'media' and v_msg.message->>'stage' = 'voice')
                                   then clock_timestamp() + make_interval(secs => (mdame.unit_stage_policy(u.stage)).deadline_s)
                                   else u.stage_deadline end
       where u.id = (v_msg.message->>'unit_id')::uuid and u.stage not in ('published', 'deferred', 'rejected', 'failed');
    end if;
    msg_id := v_msg.msg_id;
    read_ct := v_msg.read_ct;
    message := v_msg.message;
    lease_holder := v_holder;
    completed_result := (select r.result from mdame.step_results r where r.step_token = v_msg.message->>'step_token');
    return next;
  end loop;
end;
$$;
