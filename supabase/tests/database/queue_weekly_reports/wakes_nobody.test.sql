begin;
\ir ../_fixtures.psql
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select plan(2);

-- A Supabase-shaped database, where a wake would be a pg_net request to the tick.
select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url', 'functions base URL');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key', 'tick bearer');

select is(mdame.queue_weekly_reports('2026-11-22 21:00Z'), 2, 'reports queued');
select is((select count(*)::int from net.http_request_queue), 0,
  'the Edge tick is not woken: the render-runner builds the reports, claiming them on its own pass');

select * from finish();
rollback;
