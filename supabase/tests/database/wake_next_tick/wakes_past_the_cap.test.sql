begin;
\ir ../_fixtures.psql
-- The stack's own secrets, any request pg_net has not sent yet and the ticks in flight are there
-- (the real extensions or their stand-ins): this test starts from none (the transaction rolls back).
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
delete from mdame.settings where key = 'stage_runner.max_ticks';
select plan(5);

select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key');

-- Every slot taken: the tick that runs out of time is one of them, and its successor must still start.
select mdame.wake_stage_runner('w' || n) from generate_series(1, 4) n;
select mdame.wake_next_tick() as request_id \gset
select is((select convert_from(body, 'UTF8')::jsonb from net.http_request_queue where id = :request_id), '{"reason": "more"}'::jsonb,
  'the successor is posted with reason more although every slot is taken');
select is((select url from net.http_request_queue where id = :request_id), 'https://abcdefgh.supabase.mdame-test.invalid/functions/v1/pipeline/tick',
  'to the tick, like every wake');
select is((select count(*)::int from mdame.stage_runner_wakes where request_id = :request_id), 1, 'it is in flight like every tick');

-- The engine role calls it from the tick.
delete from net.http_request_queue;
set local role mdame_engine;
select mdame.wake_next_tick();
reset role;
select is((select count(*)::int from net.http_request_queue), 1, 'mdame_engine may wake the next tick');

delete from vault.secrets where name = 'mdame_functions_url';
select throws_ok($$ select mdame.wake_next_tick() $$, 'MDN01', null, 'without the functions URL it fails with MDN01 like every wake');

select * from finish();
rollback;
