begin;
\ir ../_fixtures.psql
delete from mdame.watchdog_checks where name not in ('tick_liveness', 'heartbeat');
delete from vault.secrets where name like 'mdame_telegram_%' or name = 'mdame_heartbeat_url';
update mdame.watchdog_checks set ok_at = null, pending_since = null, failing_since = null, alerted = false, detail = null;
select plan(6);

select is(mdame.watchdog_status()->'missing_secrets', '["mdame_telegram_bot_token", "mdame_telegram_chat_id"]'::jsonb,
          'without the bot and chat in Vault it names both');
select vault.create_secret('4242:status-test-token', 'mdame_telegram_bot_token', 'bot');
select vault.create_secret('-100777', 'mdame_telegram_chat_id', 'chat');
select is(mdame.watchdog_status()->'missing_secrets', '[]'::jsonb, 'with them nothing is missing');
select ok(position('status-test-token' in mdame.watchdog_status()::text) = 0 and position('-100777' in mdame.watchdog_status()::text) = 0,
          'no secret value is returned');
update mdame.watchdog_checks set ok_at = '2026-12-07 10:00:00Z', pending_since = '2026-12-07 10:01:00Z' where name = 'tick_liveness';
insert into mdame.watchdog_checks (name, failing_since, detail, alerted) values ('runs', '2026-12-07 06:15:00Z', '2 dimension(s) due ...', true);
select is(mdame.watchdog_status()->'failing', '[{"check": "runs", "since": "2026-12-07T06:15:00+00:00", "detail": "2 dimension(s) due ..."}]'::jsonb,
          'the failing checks with since when and what was said');
select is((mdame.watchdog_status()->>'tick_pending_since')::timestamptz, '2026-12-07 10:01:00Z'::timestamptz, 'the pending tick request');
select is(mdame.watchdog_status()->>'job_active', 'true', 'the pg_cron job is active');

select * from finish();
rollback;
