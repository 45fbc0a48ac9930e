-- The engine's pg_cron jobs, declared once: each job's name, its cron schedule and the mdame
-- function it calls. schedules.sql schedules them (the cron command is derived, `command`),
-- engine_job_function and run_engine_job (the dashboard's "run now") read them, and list_schedules
-- shows the doctor each one with its state in cron.job. A call is an mdame function with at most a
-- boolean literal argument (engine_jobs_call_check), so run_engine_job executes only text of that
-- shape, and no client role may write this table.

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
  ('mdame-housekeeping', '*/10 * * * *', 'mdame.housekeeping(false)', 'true'),
  ('mdame-publish-drain', '* * * * *', 'mdame.drain_deferred_publications()', 'false'),
  ('mdame-review-expiry', '* * * * *', 'mdame.expire_reviews()', 'false'),
  ('mdame-scheduled-runs', '* * * * *', 'mdame.trigger_scheduled_run()', 'true'),
  ('mdame-storage-deletions', '*/10 * * * *', 'mdame.wake_due_storage_deletions()', 'false'),
  ('mdame-tick', '* * * * *', 'mdame.tick()', 'false'),
  ('mdame-watchdog', '* * * * *', 'mdame.watchdog()', 'false'),
  ('mdame-weekly-reports', '0 21 * * 0', 'mdame.queue_weekly_reports()', 'false')
on conflict do nothing;
