-- pg_cron: every job of mdame.engine_jobs (the minutely tick, scheduled runs, publish drain and
-- alerts; hourly analytics fetches; daily housekeeping; the weekly reports and adaptation; the
-- check for due Storage deletions), scheduled under its name. A job that exists keeps
-- its state (an operator may have paused it) and follows the table's schedule and command; nothing
-- is created twice and no error is swallowed, so a rerun changes nothing.

do $$
declare
  v_job mdame.engine_jobs;
  v_cron record;
begin
  for v_job in select * from mdame.engine_jobs order by name loop
    select j.jobid, j.schedule, j.command into v_cron from cron.job j where j.jobname = v_job.name;
    if v_cron.jobid is null then
      perform cron.schedule(v_job.name, v_job.schedule, v_job.command);
    elsif v_cron.schedule is distinct from v_job.schedule or v_cron.command is distinct from v_job.command then
      perform cron.alter_job(v_cron.jobid, schedule => v_job.schedule, command => v_job.command);
    end if;
  end loop;
end
$$;
