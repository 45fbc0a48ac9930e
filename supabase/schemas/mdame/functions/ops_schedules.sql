-- The ops dashboard's schedules (GET /pipeline/ops/schedules, shared/contracts/ops.ts
-- OpsScheduleList): the engine's pg_cron jobs (mdame-*) with their command cut short, their last
-- run from cron.job_run_details when it can be read, and whether run_engine_job can run them. The
-- route works out each next run from the cron expression. Definer's rights, as list_schedules:
-- cron.job shows a role only its own jobs, and the jobs belong to the migration owner.

create or replace function mdame.ops_schedules()
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
declare
  v_schedules jsonb;
  v_details_readable boolean := false;
begin
  if to_regclass('cron.job') is null then
    return jsonb_build_object('cron_available', false, 'run_details_readable', false, 'schedules', '[]'::jsonb);
  end if;
  if to_regclass('cron.job_run_details') is not null then
    begin
      perform 1 from cron.job_run_details limit 1;
      v_details_readable := true;
    exception when insufficient_privilege then
      v_details_readable := false;
    end;
  end if;
  if v_details_readable then
    select coalesce(jsonb_agg(jsonb_build_object(
             'name', j.jobname, 'schedule', j.schedule, 'active', j.active, 'command', left(j.command, 200),
             'last_run', case when d.status is null then null else jsonb_build_object(
                           'status', d.status, 'start_time', d.start_time, 'end_time', d.end_time,
                           'return_message', left(d.return_message, 500)) end,
             'runnable', mdame.engine_job_function(j.jobname) is not null) order by j.jobid), '[]'::jsonb)
      into v_schedules
      from cron.job j
      left join lateral (
        select r.status, r.start_time, r.end_time, r.return_message from cron.job_run_details r
         where r.jobid = j.jobid order by r.runid desc limit 1
      ) d on true
     where j.jobname like 'mdame-%';
  else
    select coalesce(jsonb_agg(jsonb_build_object(
             'name', j.jobname, 'schedule', j.schedule, 'active', j.active, 'command', left(j.command, 200),
             'last_run', null, 'runnable', mdame.engine_job_function(j.jobname) is not null) order by j.jobid), '[]'::jsonb)
      into v_schedules
      from cron.job j
     where j.jobname like 'mdame-%';
  end if;
  return jsonb_build_object('cron_available', true, 'run_details_readable', v_details_readable, 'schedules', v_schedules);
end;
$$;
