-- Every safety verdict is recorded, allowed or not, with what decided it: the category, the
-- classifier id and version, the model that answered and its confidence. Allowed topics get an
-- audit row too (record_topics used to write only rejections), and model-written text the safety
-- gate refuses ends its unit with an audit row (reject_unsafe_output) instead of being stored.

alter table mdame.safety_audit_logs
  add column category text,
  add column model text,
  add column confidence real check (confidence between 0 and 1);

alter table mdame.safety_audit_logs drop constraint safety_audit_logs_subject_check;
alter table mdame.safety_audit_logs add constraint safety_audit_logs_subject_check
  check (subject in ('topic', 'script', 'scene_plan'));

create index safety_audit_logs_run_idx on mdame.safety_audit_logs (run_id, subject);

-- One audit row from a verdict object {allowed, category, reasons, classifier, model, confidence}.
create function mdame.insert_safety_audit(p_run_id uuid, p_unit_id uuid, p_dimension_id text, p_subject text, p_subject_text text, p_verdict jsonb)
returns void
language sql
set search_path = ''
as $$
  insert into mdame.safety_audit_logs (run_id, unit_id, dimension_id, subject, subject_text, verdict, reasons, classifier, category, model, confidence)
  values (p_run_id, p_unit_id, p_dimension_id, p_subject, left(coalesce(p_subject_text, ''), 8000),
          case when (p_verdict->>'allowed')::boolean then 'allowed' else 'rejected' end,
          case when jsonb_typeof(p_verdict->'reasons') = 'array' then p_verdict->'reasons' else '[]'::jsonb end,
          coalesce(p_verdict->>'classifier', 'unknown'), p_verdict->>'category', p_verdict->>'model',
          (p_verdict->>'confidence')::real);
$$;

-- The script's verdict with its details (p_verdict: {category, model, confidence}); the audit row
-- keeps the narration as its subject text, as before.
create function mdame.record_safety_verdict(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_allowed boolean, p_reasons jsonb,
                                            p_classifier text, p_holder text, p_verdict jsonb)
returns mdame.work_units
language plpgsql
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

-- The former signature, kept for callers that record no details.
create or replace function mdame.record_safety_verdict(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_allowed boolean, p_reasons jsonb, p_classifier text, p_holder text default null)
returns mdame.work_units
language sql
set search_path = ''
as $$
  select mdame.record_safety_verdict(p_msg_id, p_unit_id, p_step_token, p_allowed, p_reasons, p_classifier, p_holder, '{}'::jsonb);
$$;

-- Model-written text the firewall or the safety gate refused at p_stage ('script' or 'plan'): an
-- audit row with the verdict, the unit rejected, the task archived. Nothing of the text is stored
-- on the unit. A late or repeated call returns the unit unchanged.
create function mdame.reject_unsafe_output(p_msg_id bigint, p_unit_id uuid, p_stage text, p_step_token text, p_subject text,
                                           p_subject_text text, p_verdict jsonb, p_holder text default null)
returns mdame.work_units
language plpgsql
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

select mdame.restrict_function_privileges();
