begin;
\ir ../_fixtures.psql
-- The stack's own secrets, any request pg_net has not sent yet and the ticks in flight are there
-- (the real extensions or their stand-ins): this test starts from none (the transaction rolls back).
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
delete from mdame.settings where key = 'stage_runner.max_ticks';
select plan(8);

select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key');

-- Four ticks by default: a fifth wake while all four are unanswered posts nothing.
select mdame.wake_stage_runner('w' || n) from generate_series(1, 5) n;
select is((select count(*)::int from net.http_request_queue), 4, 'four wakes post four ticks; the fifth finds every slot taken');
select is((select count(*)::int from mdame.stage_runner_wakes), 4, 'each posted tick is recorded in flight');

-- An answer pg_net records frees its tick's slot.
insert into net._http_response (id, status_code, content, timed_out, created)
select min(request_id), 200, '{}', false, clock_timestamp() from mdame.stage_runner_wakes;
select mdame.wake_stage_runner('after an answer');
select is((select count(*)::int from net.http_request_queue where convert_from(body, 'UTF8')::jsonb->>'reason' = 'after an answer'), 1,
  'a tick whose answer is recorded leaves its slot to the next wake');
select is((select count(*)::int from mdame.stage_runner_wakes), 4, 'the answered tick is no longer in flight');

-- A tick whose request timed out without an answer (a lost request, a stopped sender) frees its slot too.
update mdame.stage_runner_wakes set expires_at = clock_timestamp() - interval '1 second'
 where request_id = (select min(request_id) from mdame.stage_runner_wakes);
select mdame.wake_stage_runner('after a timeout');
select is((select count(*)::int from net.http_request_queue where convert_from(body, 'UTF8')::jsonb->>'reason' = 'after a timeout'), 1,
  'a tick past its request''s timeout leaves its slot to the next wake');

-- The operator's setting moves the bound.
insert into mdame.settings (key, value) values ('stage_runner.max_ticks', '6');
select mdame.wake_stage_runner('sixth' || n) from generate_series(1, 3) n;
select is((select count(*)::int from mdame.stage_runner_wakes), 6, 'stage_runner.max_ticks = 6 lets six ticks run at once');

-- A setting that is no count from 1 to 100 keeps the default rather than stopping every enqueue.
update mdame.settings set value = 'lots' where key = 'stage_runner.max_ticks';
delete from mdame.stage_runner_wakes;
select lives_ok($$ select mdame.wake_stage_runner('typo' || n) from generate_series(1, 5) n $$, 'a broken setting fails no wake');
select is((select count(*)::int from mdame.stage_runner_wakes), 4, 'and the default of four holds');

select * from finish();
rollback;
