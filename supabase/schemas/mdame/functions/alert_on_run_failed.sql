-- Producer: a run that ends failed raises a run_failed alert in the transaction that closes it,
-- with the failed units' last errors (at most five) for the operator.

create or replace function mdame.alert_on_run_failed()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_units jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('unit_id', u.id, 'dimension_id', u.dimension_id, 'error', left(coalesce(u.error, ''), 300))), '[]'::jsonb)
    into v_units
    from (select * from mdame.work_units where run_id = new.id and stage = 'failed' order by updated_at desc limit 5) u;
  perform mdame.raise_alert(
    'run_failed', new.dimension_filter, 'run_failed:' || new.id,
    format('Run %s (%s, %s) failed%s', new.id, new.env, new.run_date, coalesce(': ' || left(new.error, 500), '')),
    jsonb_build_object('run_id', new.id, 'env', new.env, 'run_date', new.run_date, 'trigger_kind', new.trigger_kind,
                       'error', new.error, 'failed_units', v_units));
  return new;
end;
$$;

comment on function mdame.alert_on_run_failed() is 'internal: trigger raising run_failed when a run ends failed';

create trigger pipeline_runs_alert_failed after update of status on mdame.pipeline_runs
  for each row when (new.status = 'failed' and old.status is distinct from 'failed') execute function mdame.alert_on_run_failed();
