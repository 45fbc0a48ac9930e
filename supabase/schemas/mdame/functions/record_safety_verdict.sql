-- The former signature, kept for callers that record no details.

create or replace function mdame.record_safety_verdict(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_allowed boolean, p_reasons jsonb, p_classifier text, p_holder text, p_verdict jsonb)
returns mdame.work_units
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'safety', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;
  perform mdame.insert_safety_audit(v_unit.run_id, v_unit.id, v_unit.dimension_id, 'script',
    coalesce(v_unit.script->>'narration', ''),
    coalesce(p_verdict, '{}'::jsonb) || jsonb_build_object('allowed', p_allowed, 'reasons', coalesce(p_reasons, '[]'::jsonb), 'classifier', p_classifier));
  perform mdame.store_step_result(p_step_token, jsonb_build_object('allowed', p_allowed, 'reasons', p_reasons));
  if p_allowed then
    v_unit := mdame.set_unit_stage(p_unit_id, 'plan');
    perform mdame.enqueue_stage_task('plan', v_unit.run_id, p_unit_id);
  else
    v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', 'rejected by the safety classifier');
  end if;
  perform mdame.archive_stage_task(p_msg_id);
  if not p_allowed then
    perform mdame.close_run_if_done(v_unit.run_id);
  end if;
  return v_unit;
end;
$$;

create or replace function mdame.record_safety_verdict(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_allowed boolean, p_reasons jsonb, p_classifier text, p_holder text default null::text)
returns mdame.work_units
language sql
security definer
set search_path = ''
as $$
  select mdame.record_safety_verdict(p_msg_id, p_unit_id, p_step_token, p_allowed, p_reasons, p_classifier, p_holder, '{}'::jsonb);
$$;
