-- A script whose hooks all scored under the pass mark: the unit is rejected with the reason, and
-- every round's audits are kept on the unit (work_units.script.hook_audits) and in the step result,
-- so an operator sees why each candidate failed.

create or replace function mdame.reject_script(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_reason text, p_hook_audits jsonb, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  if jsonb_typeof(p_hook_audits) is distinct from 'array' then
    raise exception 'hook audits must be a JSON array' using errcode = 'MDS01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'script', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set script = jsonb_build_object('hook_audits', p_hook_audits) where id = p_unit_id;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('rejected', p_reason, 'hook_audits', p_hook_audits));
  v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', p_reason);
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'script', 'script_rejected',
    jsonb_build_object('reason', p_reason, 'audits', jsonb_array_length(p_hook_audits)));
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
