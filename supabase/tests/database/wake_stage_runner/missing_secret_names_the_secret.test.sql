begin;
\ir ../_fixtures.psql
-- The stack's own secrets, any request pg_net has not sent yet and the ticks in flight are there
-- (the real extensions or their stand-ins): this test starts from none (the transaction rolls back).
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select plan(5);

-- The hint of the error a call raises, or null when it raises none.
create function tests.error_hint(p_sql text) returns text
language plpgsql as $$
declare
  v_hint text;
begin
  execute p_sql;
  return null;
exception when others then
  get stacked diagnostics v_hint = pg_exception_hint;
  return v_hint;
end $$;

select throws_ok($$ select mdame.wake_stage_runner('voice') $$, 'MDN01',
  'Vault secret mdame_functions_url is not set: the stage runner cannot be woken through pg_net',
  'without the functions URL the wake fails with MDN01 naming the secret');
select matches(tests.error_hint($$ select mdame.wake_stage_runner('voice') $$),
  'vault\.create_secret\(.*''mdame_functions_url''\)', 'the hint is the vault.create_secret call to run');

select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url');
select throws_ok($$ select mdame.wake_stage_runner('voice') $$, 'MDN01',
  'Vault secret mdame_service_role_key is not set: the stage runner cannot be woken through pg_net',
  'without the service key the wake fails with MDN01 naming that secret');
select matches(tests.error_hint($$ select mdame.wake_stage_runner('voice') $$),
  'vault\.create_secret\(.*''mdame_service_role_key''\)', 'the hint is the vault.create_secret call to run');

-- Nothing is half-done: the failed wakes queued no request.
select is((select count(*) from net.http_request_queue), 0::bigint, 'a refused wake queues no HTTP request');

select * from finish();
rollback;
