begin;
\ir ../_fixtures.psql
delete from net.http_request_queue;
delete from net._http_response;
delete from mdame.watchdog_checks where name not in ('tick_liveness', 'heartbeat');
update mdame.watchdog_checks set ok_at = '2026-12-08 09:00:00Z', pending_since = null, failing_since = null, alerted = false, detail = null;
delete from cron.job_run_details;
delete from mdame.worker_heartbeats;
select plan(12);

-- runs: the seeded dimensions start at 06:00 UTC; on a later day nothing has started them.
select is(mdame.watchdog_at('2026-12-08 06:10:00Z')->'failing', '[]'::jsonb, 'ten minutes after the start is within the grace');
select is(mdame.watchdog_at('2026-12-08 06:20:00Z')->'failing', '["runs"]'::jsonb, 'a quarter of an hour later the runs check fails');
select matches((select summary from mdame.alerts where details->>'check' = 'runs'),
               '^2 dimension\(s\) due since 2026-12-08 06:00 UTC have not started: sains-singkat, tech-explained \(pg_cron job mdame-scheduled-runs\)\.$',
               'naming the dimensions and since when');
update mdame.dimensions set active = false;

-- cron:JOB: the engine's job whose last run failed.
insert into cron.job_run_details (jobid, runid, job_pid, database, username, command, status, return_message, start_time, end_time)
select jobid, 1000001, 1, 'postgres', 'postgres', command, 'succeeded', '1 row', '2026-12-08 06:28:00Z', '2026-12-08 06:28:01Z'
  from cron.job where jobname = 'mdame-scheduled-runs';
insert into cron.job_run_details (jobid, runid, job_pid, database, username, command, status, return_message, start_time, end_time)
select jobid, 1000002 + g, 1, 'postgres', 'postgres', command, 'failed', 'ERROR:  environment mismatch', '2026-12-08 06:29:00Z'::timestamptz + g * interval '1 minute', null
  from cron.job, generate_series(0, 1) g where jobname = 'mdame-scheduled-runs';
select is(mdame.watchdog_at('2026-12-08 06:31:00Z')->'failing', '["cron:mdame-scheduled-runs"]'::jsonb, 'a job whose last run failed is named');
select is((select summary from mdame.alerts where details->>'check' = 'cron:mdame-scheduled-runs'),
          'The pg_cron job mdame-scheduled-runs has failed since 2026-12-08 06:29 UTC: ERROR:  environment mismatch',
          'since its first failure after its last success, with the error');
select is((select count(*) from mdame.alerts where kind = 'engine_recovered' and details->>'check' = 'runs'), 1::bigint,
          'the runs check, passing again, is reported recovered');

-- workers:Q: a render job waiting ten minutes, no render worker alive.
select pgmq.send('render', jsonb_build_object('unit_id', gen_random_uuid())) as msg \gset
update pgmq.q_render set enqueued_at = clock_timestamp() - interval '10 minutes', vt = clock_timestamp() - interval '10 minutes' where msg_id = :msg;
insert into mdame.worker_heartbeats (worker_id, queue_name, host, pid, concurrency, beat_interval_s, started_at, last_beat_at)
values ('render-1', 'render', 'box', 10, 1, 10, clock_timestamp() - interval '2 hours', clock_timestamp() - interval '1 hour');
select ok(mdame.watchdog_at(clock_timestamp())->'failing' ? 'workers:render', 'jobs waiting without a live worker fail the check');
select is((select kind from mdame.alerts where details->>'check' = 'workers:render'), 'workers_absent', 'as workers_absent');
select matches((select summary from mdame.alerts where details->>'check' = 'workers:render'),
               '^No render worker is alive while 1 job\(s\) wait, the oldest for 10 min \(last beat \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$', 'with the last beat');

-- alerts: what the tick should deliver, waiting.
select mdame.raise_alert('run_failed', 'tech-explained', 'run_failed:watchdog-test', 'Run 1 failed: a test');
update mdame.alerts set created_at = mdame.engine_now() - interval '11 minutes', last_error = 'HTTP 502' where dedupe_key = 'run_failed:watchdog-test';
select ok(mdame.watchdog_at(clock_timestamp())->'failing' ? 'alerts', 'an alert undelivered for ten minutes fails the alerts check');
select matches((select summary from mdame.alerts where details->>'check' = 'alerts'),
               E'^1 alert\\(s\\) have waited 11 min for delivery \\(last error: HTTP 502\\)\\. The oldest:\nrun_failed: Run 1 failed: a test$',
               'carrying what the operator would have missed');

-- pg_net: its queue not moving.
select net.http_post('http://nowhere.mdame-test.invalid/', '{}'::jsonb);
select mdame.watchdog_at(clock_timestamp());
update mdame.watchdog_checks set pending_since = clock_timestamp() - interval '4 minutes' where name = 'net_queue';
select ok(mdame.watchdog_at(clock_timestamp())->'failing' ? 'pg_net', 'a request left in pg_net''s queue for three minutes fails the pg_net check');

select * from finish();
rollback;
