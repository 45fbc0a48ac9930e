-- Ends a unit as rejected at its current stage (hook audit failed, topic unusable), archiving the task.

create or replace function mdame.reject_unit(p_msg_id bigint, p_unit_id uuid, p_stage text, p_step_token text, p_reason text, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, p_stage, 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('rejected', p_reason));
  v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', p_reason);
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
