-- Model-written text the firewall or the safety gate refused at p_stage ('script' or 'plan'): an
-- audit row with the verdict, the unit rejected, the task archived. Nothing of the text is stored
-- on the unit. A late or repeated call returns the unit unchanged.

create or replace function mdame.reject_unsafe_output(p_msg_id bigint, p_unit_id uuid, p_stage text, p_step_token text, p_subject text, p_subject_text text, p_verdict jsonb, p_holder text default null::text)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_reason text;
begin
  if p_stage not in ('script', 'plan') then
    raise exception 'reject_unsafe_output: stage % has no model output to refuse', p_stage using errcode = 'MDS01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, p_stage, 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;
  perform mdame.insert_safety_audit(v_unit.run_id, v_unit.id, v_unit.dimension_id, p_subject, p_subject_text,
    p_verdict || jsonb_build_object('allowed', false));
  v_reason := left(format('rejected by the safety gate (%s): %s', coalesce(p_verdict->>'category', 'other'),
    coalesce(p_verdict->'reasons'->>0, 'no reason given')), 2000);
  perform mdame.store_step_result(p_step_token, jsonb_build_object('rejected', v_reason));
  v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', v_reason);
  perform mdame.archive_stage_task(p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$$;
