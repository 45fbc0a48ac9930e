begin;
\ir ../_fixtures.psql
-- From a quiet engine: no requests waiting, no answers, no failures known, no cron history.
delete from net.http_request_queue;
delete from net._http_response;
delete from mdame.watchdog_checks where name not in ('tick_liveness', 'heartbeat');
update mdame.watchdog_checks set ok_at = null, pending_since = null, failing_since = null, alerted = false, detail = null;
delete from cron.job_run_details;
-- The watchdog's own sends would wait in pg_net's queue (nothing sends them here): no bot, no sends.
delete from vault.secrets where name like 'mdame_telegram_%';
update mdame.dimensions set active = false;
-- The probe has its own test (probes_an_idle_engine): here no tick is requested but the one below.
insert into mdame.settings (key, value) values ('watchdog.probe_every', '1 day') on conflict (key) do update set value = excluded.value;
select plan(16);

-- A tick requested at 10:00 that no tick has answered.
update mdame.watchdog_checks set ok_at = '2026-12-07 09:59:30Z', pending_since = '2026-12-07 10:00:00Z' where name = 'tick_liveness';
select is(mdame.watchdog_at('2026-12-07 10:01:50Z')->'failing', '[]'::jsonb, 'under two minutes unanswered is within the grace');
select is(mdame.watchdog_at('2026-12-07 10:04:10Z')->'failing', '["tick"]'::jsonb, 'past two minutes the tick is failing');
select is((select count(*) from mdame.alerts where kind = 'engine_stopped'), 1::bigint, 'one engine_stopped alert is raised');
select is((select summary from mdame.alerts where kind = 'engine_stopped'),
          'The pipeline tick has failed for 4 min: no tick requested since 2026-12-07 10:00 UTC has finished (the last one ended 2026-12-07 09:59 UTC).',
          'it names the tick, how long it has failed and since when');
select is((select delivered_by || ' ' || (details->>'check') from mdame.alerts where kind = 'engine_stopped'), 'database tick',
          'the watchdog delivers it itself');
select is((select count(*) from mdame.claim_alerts(10)), 0::bigint, 'the tick''s notifier never claims it');
select is((mdame.watchdog_at('2026-12-07 10:09:00Z'))->>'raised', '0', 'a failure goes on without a second page');
select is((select failing_since from mdame.watchdog_checks where name = 'tick'), '2026-12-07 10:00:00Z'::timestamptz,
          'and keeps the time it began');
select is((mdame.watchdog_at('2026-12-07 14:05:00Z'))->'failing', '["tick"]'::jsonb, 'four hours on, the tick alone fails');
select is((select count(*) from mdame.alerts where summary like 'Still failing: %'), 1::bigint, 'and pages again');
select matches((select summary from mdame.alerts where kind = 'engine_stopped' and dedupe_key like '%:again:%'),
               '^Still failing: The pipeline tick has failed for 4 h 5 min: ', 'saying it is still failing');
select is((mdame.watchdog_at('2026-12-07 14:06:00Z'))->>'raised', '0', 'and not again until four more hours');

-- A tick that started after the request answers it.
select mdame.record_tick_ok();
select is((select pending_since from mdame.watchdog_checks where name = 'tick_liveness'), null, 'a tick that ends clears the pending request');
select is((mdame.watchdog_at('2026-12-07 14:10:00Z'))->>'recovered', '1', 'the next check finds it recovered');
select is((select summary from mdame.alerts where kind = 'engine_recovered'),
          'Recovered: the pipeline tick works again after 4 h 10 min (2026-12-07 10:00 UTC to 2026-12-07 14:10 UTC). It had said: The pipeline tick has failed for 4 h 6 min: no tick requested since 2026-12-07 10:00 UTC has finished (the last one ended 2026-12-07 09:59 UTC).',
          'the recovery says how long it lasted');
select is((select failing_since::text || alerted::text || paged_at::text from mdame.watchdog_checks where name = 'tick'), null,
          'the tick''s failure is forgotten');

select * from finish();
rollback;
