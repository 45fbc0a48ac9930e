-- The engine's pg_cron jobs declared once, in mdame.engine_jobs: schedules, the run-now list
-- (engine_job_function, run_engine_job) and the doctor's list (list_schedules) read it. The
-- scheduled-runs job's command becomes the derived one (select count(*) from a set-returning call).

create table mdame.engine_jobs (
  name text not null,
  schedule text not null,
  call text not null,
  returns_set boolean not null,
  command text generated always as (case when returns_set then 'select count(*) from ' || call else 'select ' || call end) stored,
  constraint engine_jobs_pkey primary key (name),
  constraint engine_jobs_call_check check ((call ~ '^mdame\.[a-z_]{1,60}\((true|false)?\)$')),
  constraint engine_jobs_name_check check ((name ~ '^mdame-[a-z0-9-]{1,60}$'))
);

comment on table mdame.engine_jobs is 'The engine''s pg_cron jobs: name, schedule and the function each calls (schedules.sql schedules them; run_engine_job runs one at once).';

alter table mdame.engine_jobs enable row level security;

insert into mdame.engine_jobs (name, schedule, call, returns_set) values
  ('mdame-adapt-weekly', '30 22 * * 0', 'mdame.mark_adaptation_week_due()', 'false'),
  ('mdame-alerts', '* * * * *', 'mdame.check_alerts()', 'false'),
  ('mdame-analytics-fetches', '0 * * * *', 'mdame.schedule_analytics_fetches()', 'false'),
  ('mdame-housekeeping', '30 3 * * *', 'mdame.housekeeping(false)', 'true'),
  ('mdame-publish-drain', '* * * * *', 'mdame.drain_deferred_publications()', 'false'),
  ('mdame-scheduled-runs', '* * * * *', 'mdame.trigger_scheduled_run()', 'true'),
  ('mdame-storage-deletions', '*/10 * * * *', 'mdame.wake_due_storage_deletions()', 'false'),
  ('mdame-tick', '* * * * *', 'mdame.tick()', 'false'),
  ('mdame-weekly-reports', '0 21 * * 0', 'mdame.queue_weekly_reports()', 'false'),
  ('mdame-weekly-reports-retry', '*/5 * * * *', 'mdame.wake_due_weekly_reports()', 'false')
on conflict do nothing;

create or replace function mdame.engine_job_function(p_name text)
returns text
language sql
stable
set search_path = ''
as $$
  select j.call from mdame.engine_jobs j where j.name = p_name;
$$;

comment on function mdame.engine_job_function(text) is 'internal: the run-now whitelist of ops_schedules and run_engine_job';

revoke all on function mdame.engine_job_function(text) from public, anon, authenticated;

create or replace function mdame.run_engine_job(p_name text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_job mdame.engine_jobs;
  v_result jsonb;
begin
  select * into v_job from mdame.engine_jobs j where j.name = p_name;
  if v_job.name is null then
    raise exception 'no engine schedule %', left(coalesce(p_name, '(null)'), 80) using errcode = 'MDN01';
  end if;
  if v_job.returns_set then
    execute format('select coalesce(jsonb_agg(to_jsonb(r)), ''[]''::jsonb) from %s r', v_job.call) into v_result;
  else
    execute format('select to_jsonb(%s)', v_job.call) into v_result;
  end if;
  return jsonb_build_object('name', p_name, 'function', v_job.call, 'result', v_result, 'ran_at', clock_timestamp());
end;
$$;

revoke all on function mdame.run_engine_job(text) from public, anon, authenticated;
grant execute on function mdame.run_engine_job(text) to mdame_engine;
grant execute on function mdame.run_engine_job(text) to service_role;

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

revoke all on function mdame.list_schedules() from public, anon, authenticated;
grant execute on function mdame.list_schedules() to mdame_engine;
grant execute on function mdame.list_schedules() to service_role;

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

select mdame.restrict_function_privileges();
