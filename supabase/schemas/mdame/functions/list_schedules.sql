-- The engine's pg_cron jobs for the doctor: every job of mdame.engine_jobs with its schedule and
-- state in cron.job (both null when it is not scheduled), scheduled ones in the order they were
-- created. Definer's rights: cron.job shows a role only its own jobs, and the jobs belong to the
-- migration owner. Nothing without pg_cron.

create or replace function mdame.list_schedules()
returns table(jobname text, schedule text, active boolean)
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  if to_regclass('cron.job') is null then
    return;
  end if;
  return query
    select e.name, j.schedule::text, j.active
      from mdame.engine_jobs e
      left join cron.job j on j.jobname = e.name
     order by j.jobid nulls last, e.name;
end;
$$;
