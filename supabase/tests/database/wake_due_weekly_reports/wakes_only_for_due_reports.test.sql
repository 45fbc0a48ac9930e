begin;
\ir ../_fixtures.psql
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select plan(5);

select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url', 'functions base URL');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key', 'tick bearer');

select is(mdame.wake_due_weekly_reports(), false, 'no report: no wake');
select mdame.queue_weekly_reports('2026-11-22 21:00Z');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
-- Both claimed and one failed with a backoff: nothing is due until it has passed.
create temp table c as select * from mdame.claim_weekly_reports('builder-a', 5, 300);
select mdame.fail_weekly_report((select id from c order by dimension_id limit 1), 'builder-a', 'storage unavailable');
select is(mdame.wake_due_weekly_reports(), false, 'a report waiting out its backoff or leased wakes nobody');
select is((select count(*)::int from net.http_request_queue), 0, 'no request queued');
select mdame.set_engine_clock(interval '2 minutes');
select is(mdame.wake_due_weekly_reports(), true, 'once the backoff has passed the runner is woken');
select is((select array_agg(convert_from(body, 'UTF8')::jsonb->>'reason') from net.http_request_queue), array['report'], 'for the reports');

select * from finish();
rollback;
