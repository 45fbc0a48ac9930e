begin;
select plan(5);

select cron.schedule('not-the-engine', '*/5 * * * *', 'select 1');
select cron.schedule('mdame-not-whitelisted', '0 0 1 1 *', 'select 1');
insert into cron.job_run_details (jobid, runid, job_pid, database, username, command, status, return_message, start_time, end_time)
select jobid, 900000001, 1, 'postgres', 'postgres', command, 'failed', 'boom', now() - interval '1 minute', now() - interval '59 seconds'
  from cron.job where jobname = 'mdame-alerts';

create temp table s as select mdame.ops_schedules() as o;

select is((select (o->>'cron_available')::boolean and (o->>'run_details_readable')::boolean from s), true, 'pg_cron and its run details are read');
select is((select count(*)::int from s, jsonb_array_elements(o->'schedules') j where j->>'name' = 'not-the-engine'), 0, 'only the engine''s jobs are listed');
select is((select j->'last_run'->>'status' from s, jsonb_array_elements(o->'schedules') j where j->>'name' = 'mdame-alerts'), 'failed',
          'a job shows its last run');
select is((select (j->>'runnable')::boolean from s, jsonb_array_elements(o->'schedules') j where j->>'name' = 'mdame-tick'), true,
          'a whitelisted job is runnable');
select is((select (j->>'runnable')::boolean from s, jsonb_array_elements(o->'schedules') j where j->>'name' = 'mdame-not-whitelisted'), false,
          'a job outside the whitelist is not');

select * from finish();
rollback;
