begin;
\ir ../_fixtures.psql
-- The stack's own secrets, any request pg_net has not sent yet and the ticks in flight are there
-- (the real extensions or their stand-ins): this test starts from none (the transaction rolls back).
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select plan(8);

-- A Supabase-shaped database: pg_net and Vault, and the two secrets a deployer stores.
select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1/', 'mdame_functions_url', 'functions base URL');
select vault.create_secret('service-key-for-the-tick', 'mdame_service_role_key', 'tick bearer');

select lives_ok($$ select mdame.wake_stage_runner('voice') $$, 'the wake reads both secrets from Vault');
select is((select count(*) from net.http_request_queue), 1::bigint, 'one HTTP request is queued for pg_net');
select is((select method || ' ' || url from net.http_request_queue),
          'POST https://abcdefgh.supabase.mdame-test.invalid/functions/v1/pipeline/tick',
          'it posts to the pipeline function''s tick under the functions URL (a trailing slash is not doubled)');
select is((select headers->>'Authorization' from net.http_request_queue), 'Bearer service-key-for-the-tick',
          'the service key from Vault is the bearer token the tick requires');
select is((select convert_from(body, 'UTF8')::jsonb from net.http_request_queue), '{"reason": "voice"}'::jsonb,
          'the body carries the reason');

-- The same path from an RPC: enqueueing a stage task on an idle queue wakes the runner over HTTP.
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select tests.unit_at_stage('script') as unit \gset
select mdame.enqueue_stage_task('script', (:'unit'::mdame.work_units).run_id, (:'unit'::mdame.work_units).id);
select is((select count(*) from net.http_request_queue where url like '%/pipeline/tick'), 1::bigint,
          'an enqueue on an idle queue queues one tick request');

-- The RPCs run as their caller; service_role may not read Vault, yet its enqueues must still wake.
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
grant usage on schema net to service_role;
select throws_ok($$ set local role service_role; select 1 from vault.decrypted_secrets $$, '42501', null,
                 'service_role itself may not read Vault');
set local role service_role;
select mdame.wake_stage_runner('tick');
reset role;
select is((select count(*) from net.http_request_queue), 1::bigint, 'a wake called by service_role still queues the tick request');

select * from finish();
rollback;
