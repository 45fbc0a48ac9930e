begin;
\ir ../_fixtures.psql
delete from net.http_request_queue;
delete from net._http_response;
delete from mdame.stage_runner_wakes;
delete from mdame.watchdog_checks where name not in ('tick_liveness', 'heartbeat');
update mdame.watchdog_checks set ok_at = null, pending_since = null, failing_since = null, alerted = false, detail = null;
delete from cron.job_run_details;
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url', 'functions base URL');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key', 'tick bearer');
select plan(6);

update mdame.watchdog_checks set ok_at = clock_timestamp() - interval '30 seconds' where name = 'tick_liveness';
select is((mdame.watchdog_at(clock_timestamp()))->>'probed', 'false', 'a tick half a minute ago needs no probe');
update mdame.watchdog_checks set ok_at = clock_timestamp() - interval '61 seconds' where name = 'tick_liveness';
select is((mdame.watchdog_at(clock_timestamp()))->>'probed', 'true', 'an engine without a tick for a minute is probed with one');
select is((select count(*) from net.http_request_queue where url like '%/pipeline/tick' and convert_from(body, 'UTF8')::jsonb->>'reason' = 'watchdog'),
          1::bigint, 'the probe is a tick request like any other');
select isnt((select pending_since from mdame.watchdog_checks where name = 'tick_liveness'), null, 'and dates the tick check if nothing answers');

-- A runner that cannot be woken at all is a failure in itself.
delete from vault.secrets where name = 'mdame_functions_url';
delete from mdame.stage_runner_wakes;
update mdame.watchdog_checks set pending_since = null where name = 'tick_liveness';
select is((mdame.watchdog_at(clock_timestamp()))->'failing', '["wake"]'::jsonb, 'a missing Vault secret fails the wake check');
select matches((select summary from mdame.alerts where kind = 'engine_stopped'), '^The stage runner cannot be woken: Vault secret mdame_functions_url is not set',
               'naming the secret');

select * from finish();
rollback;
