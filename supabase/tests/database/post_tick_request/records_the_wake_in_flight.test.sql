begin;
\ir ../_fixtures.psql
-- The stack's own secrets, any request pg_net has not sent yet and the ticks in flight are there
-- (the real extensions or their stand-ins): this test starts from none (the transaction rolls back).
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select plan(4);

select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key');

select mdame.post_tick_request('voice') as request_id \gset
select is((select timeout_milliseconds from net.http_request_queue where id = :request_id), 120000,
  'the request waits up to 120 s for the tick''s answer');
select is((select reason from mdame.stage_runner_wakes where request_id = :request_id), 'voice', 'the wake is recorded under the request id');
select ok((select expires_at between woken_at + interval '119 seconds' and woken_at + interval '121 seconds'
             from mdame.stage_runner_wakes where request_id = :request_id),
  'it counts as in flight until the request''s timeout has passed');

-- Internal: no client role may post ticks on its own.
select throws_ok($$ set local role service_role; select mdame.post_tick_request('x') $$, '42501', null, 'service_role may not call it');

select * from finish();
rollback;
