create or replace function mdame.log_event(p_run_id uuid, p_unit_id uuid, p_stage text, p_kind text, p_detail jsonb default '{}'::jsonb)
returns void
language plpgsql
set search_path = ''
as $$
begin
  insert into mdame.events (run_id, unit_id, stage, kind, detail) values (p_run_id, p_unit_id, p_stage, p_kind, coalesce(p_detail, '{}'::jsonb));
end;
$$;

comment on function mdame.log_event(uuid,uuid,text,text,jsonb) is 'internal: appends to the event log; RPCs log their own transitions';
