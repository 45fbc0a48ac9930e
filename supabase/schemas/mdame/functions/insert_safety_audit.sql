-- One audit row from a verdict object {allowed, category, reasons, classifier, model, confidence}.

create or replace function mdame.insert_safety_audit(p_run_id uuid, p_unit_id uuid, p_dimension_id text, p_subject text, p_subject_text text, p_verdict jsonb)
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

comment on function mdame.insert_safety_audit(uuid,uuid,text,text,text,jsonb) is 'internal: audit rows are written by record_safety_verdict';
