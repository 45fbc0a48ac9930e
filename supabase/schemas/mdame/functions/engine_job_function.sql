-- The function one of the engine's pg_cron jobs calls (mdame.engine_jobs), or null for any other
-- name: the run-now list of ops_schedules and run_engine_job. Nothing read from cron.job is ever
-- executed.

create or replace function mdame.engine_job_function(p_name text)
returns text
language sql
stable
set search_path = ''
as $$
  select j.call from mdame.engine_jobs j where j.name = p_name;
$$;

comment on function mdame.engine_job_function(text) is 'internal: the run-now whitelist of ops_schedules and run_engine_job';
