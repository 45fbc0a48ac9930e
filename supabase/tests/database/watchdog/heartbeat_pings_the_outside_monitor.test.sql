begin;
\ir ../_fixtures.psql
delete from net.http_request_queue;
delete from net._http_response;
delete from mdame.watchdog_checks where name not in ('tick_liveness', 'heartbeat');
update mdame.watchdog_checks set ok_at = case when name = 'tick_liveness' then clock_timestamp() end, pending_since = null, failing_since = null, alerted = false, detail = null;
delete from cron.job_run_details;
update mdame.dimensions set active = false;
delete from vault.secrets where name like 'mdame_telegram_%' or name = 'mdame_heartbeat_url';
select plan(6);

select mdame.watchdog_at(clock_timestamp());
select is((select count(*) from net.http_request_queue), 0::bigint, 'without a heartbeat URL nothing is pinged');
select vault.create_secret('https://hc-ping.mdame-test.invalid/0b7a-uuid/', 'mdame_heartbeat_url', 'monitor');
select is((mdame.watchdog_at(clock_timestamp()))->>'heartbeat', 'ok', 'all well: the URL is pinged');
select is((select url from net.http_request_queue), 'https://hc-ping.mdame-test.invalid/0b7a-uuid', 'at the URL itself');
select is((mdame.watchdog_at(clock_timestamp()))->>'heartbeat', null, 'not again within five minutes');
update mdame.watchdog_checks set pending_since = clock_timestamp() - interval '4 minutes' where name = 'tick_liveness';
select is((mdame.watchdog_at(clock_timestamp()))->>'heartbeat', 'fail', 'something stopped: the monitor is told at once');
select is((select convert_from(body, 'UTF8')::jsonb->>'status' from net.http_request_queue where url like '%/fail'), 'fail', 'at <url>/fail');

select * from finish();
rollback;
