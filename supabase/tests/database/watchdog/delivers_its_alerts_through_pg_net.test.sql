begin;
\ir ../_fixtures.psql
delete from net.http_request_queue;
delete from net._http_response;
delete from mdame.watchdog_checks where name not in ('tick_liveness', 'heartbeat');
update mdame.watchdog_checks set ok_at = clock_timestamp(), pending_since = null, failing_since = null, alerted = false, detail = null;
delete from cron.job_run_details;
delete from vault.secrets where name like 'mdame_telegram_%' or name = 'mdame_heartbeat_url';
select plan(14);

select id as alert from mdame.record_alert('engine_stopped', null, 'engine_stopped:test:1', 'The pipeline tick has failed for 4 min.',
                                           '{"check": "tick"}', null, 'database') \gset

-- Without a bot in Vault the alert waits, saying why.
select is((mdame.deliver_database_alerts(clock_timestamp()))->>'posted', '0', 'nothing is posted without a token');
select is((select status || ': ' || last_error from mdame.alerts where id = :'alert'),
          'pending: Vault secret mdame_telegram_bot_token is not set: the watchdog cannot deliver its alerts', 'the alert waits with the reason');

select vault.create_secret('4242:watchdog-test-token-secret', 'mdame_telegram_bot_token', 'bot');
select vault.create_secret('-100777', 'mdame_telegram_chat_id', 'chat');
select vault.create_secret('http://telegram.mdame-test.invalid/', 'mdame_telegram_api_url', 'api');
update mdame.alerts set next_attempt_at = mdame.engine_now() where id = :'alert';
select is((mdame.deliver_database_alerts(clock_timestamp()))->>'posted', '1', 'with one it is posted');
select is((select url from net.http_request_queue), 'http://telegram.mdame-test.invalid/bot4242:watchdog-test-token-secret/sendMessage',
          'to the Bot API''s sendMessage under the URL from Vault');
select is((select convert_from(body, 'UTF8')::jsonb - 'text' from net.http_request_queue), '{"chat_id": "-100777", "disable_web_page_preview": true}'::jsonb,
          'to the chat from Vault, as plain text (no parse mode to break)');
select matches((select convert_from(body, 'UTF8')::jsonb->>'text' from net.http_request_queue), '^🛑 MD-AME has stopped \(dev\)\nThe pipeline tick has failed for 4 min\.',
               'the text says what stopped, in which environment');
select is((mdame.deliver_database_alerts(clock_timestamp()))->>'posted', '0', 'a request in flight is not posted twice');

-- Telegram's answer, as pg_net records it.
insert into net._http_response (id, status_code, content, created)
select net_request_id, 500, '{"ok":false,"error_code":500,"description":"Internal Server Error at bot4242:watchdog-test-token-secret"}', clock_timestamp()
  from mdame.alerts where id = :'alert';
select is((mdame.deliver_database_alerts(clock_timestamp()))->>'posted', '0', 'a 500 is not sent again at once');
select is((select status || ': ' || last_error from mdame.alerts where id = :'alert'), 'pending: Internal Server Error at bot[redacted]',
          'it stays pending, the token kept out of the error');
select ok((select next_attempt_at > mdame.engine_now() and net_request_id is null from mdame.alerts where id = :'alert'), 'after a backoff');

update mdame.alerts set next_attempt_at = mdame.engine_now() where id = :'alert';
select is((mdame.deliver_database_alerts(clock_timestamp()))->>'posted', '1', 'once due it is posted again');
insert into net._http_response (id, status_code, content, created)
select net_request_id, 200, '{"ok":true,"result":{"message_id":31,"chat":{"id":-100777}}}', clock_timestamp()
  from mdame.alerts where id = :'alert';
select is((mdame.deliver_database_alerts(clock_timestamp()))->>'sent', '1', 'a 200 marks it sent');
select is((select status || ' ' || chat_id || ' ' || message_ids::text from mdame.alerts where id = :'alert'), 'sent -100777 {31}',
          'with the chat and the message id');

-- A refusal of the request itself is final.
select id as other from mdame.record_alert('engine_recovered', null, 'engine_recovered:test:1', 'Recovered.', '{}', null, 'database') \gset
select mdame.deliver_database_alerts(clock_timestamp());
insert into net._http_response (id, status_code, content, created)
select net_request_id, 400, '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}', clock_timestamp()
  from mdame.alerts where id = :'other';
select mdame.deliver_database_alerts(clock_timestamp());
select is((select status || ': ' || last_error from mdame.alerts where id = :'other'), 'failed: Bad Request: chat not found',
          'a 400 fails the alert with Telegram''s description');

select * from finish();
rollback;
