-- The engine's pg_cron schedules, for the doctor: cron.job shows a role only its own jobs, and the
-- jobs belong to the migration owner. In the order they were scheduled, as cron.job lists them.

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
  return query select j.jobname::text, j.schedule::text, j.active from cron.job j where j.jobname like 'mdame-%' order by j.jobid;
end;
$$;

revoke all on function mdame.list_schedules() from public, anon, authenticated;
grant execute on function mdame.list_schedules() to mdame_engine;
grant execute on function mdame.list_schedules() to service_role;
