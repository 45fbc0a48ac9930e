-- A stage task whose next paid call would pass its dimension's budget (check_spend_budget): the
-- message goes back to the queue, invisible for p_delay_s seconds, and the read is given back (the
-- deferral spends none of the stage's attempts). Nothing of the stage is recorded, so the unit stays
-- at its stage, whole, and resumes there; what the stage already paid for is answered from the
-- caches on the next read. The unit's lease is cleared and its deadline moved past the deferral, so
-- recovery leaves it waiting. A caller whose claim is no longer current gets 'stale' and changes
-- nothing; a message that is gone, 'gone'. Returns deferred|stale|gone.

create or replace function mdame.defer_stage_task_for_budget(p_msg_id bigint, p_holder text, p_delay_s integer, p_reason text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_msg record;
  v_unit_id uuid;
  v_unit mdame.work_units;
begin
  if p_delay_s is null or p_delay_s < 1 or p_delay_s > 32 * 86400 then
    raise exception 'a budget deferral lasts 1 s to 32 days, not %', p_delay_s using errcode = '22023';
  end if;
  select q.msg_id, q.read_ct, q.message into v_msg from pgmq.q_stage_tasks q where q.msg_id = p_msg_id;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  v_unit_id := (v_msg.message->>'unit_id')::uuid;
  if v_unit_id is not null then
    select * into v_unit from mdame.work_units where id = v_unit_id for update;
  end if;
  select q.msg_id, q.read_ct, q.message into v_msg from pgmq.q_stage_tasks q where q.msg_id = p_msg_id for update;
  if v_msg.msg_id is null then
    return 'gone';
  end if;
  if not mdame.holds_stage_claim(p_holder, p_msg_id, v_msg.read_ct)
     or (v_unit.id is not null and v_unit.lease_holder is distinct from p_holder) then
    return 'stale';
  end if;
  update pgmq.q_stage_tasks
     set vt = clock_timestamp() + make_interval(secs => p_delay_s), read_ct = greatest(read_ct - 1, 0)
   where msg_id = p_msg_id;
  if v_unit.id is not null then
    update mdame.work_units
       set lease_holder = null, lease_expires_at = null,
           stage_deadline = now() + make_interval(secs => p_delay_s + (mdame.unit_stage_policy(v_unit.stage)).deadline_s),
           updated_at = now()
     where id = v_unit.id;
  end if;
  perform mdame.log_event((v_msg.message->>'run_id')::uuid, v_unit_id, v_msg.message->>'stage', 'budget_deferred',
                          jsonb_build_object('delay_s', p_delay_s, 'reason', left(p_reason, 500)));
  return 'deferred';
end;
$$;
