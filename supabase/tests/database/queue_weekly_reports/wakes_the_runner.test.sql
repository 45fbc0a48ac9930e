begin;
\ir ../_fixtures.psql
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select plan(3);

-- A Supabase-shaped database: the wake is a pg_net request to the tick, whose body names the reason.
select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url', 'functions base URL');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key', 'tick bearer');

select is(mdame.queue_weekly_reports('2026-11-22 21:00Z'), 2, 'reports queued');
select is((select array_agg(convert_from(body, 'UTF8')::jsonb->>'reason') from net.http_request_queue where url like '%/pipeline/tick'),
  array['report'], 'the runner is woken once, for the reports');
-- Nothing pending (both built): a repeated queue wakes nobody.
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
update mdame.weekly_reports set status = 'failed';
select mdame.queue_weekly_reports('2026-11-22 21:00Z');
select is((select count(*)::int from net.http_request_queue), 0, 'with nothing to build, no wake');

select * from finish();
rollback;
