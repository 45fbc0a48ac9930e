begin;
\ir ../_fixtures.psql
select plan(4);

-- On a server with Supabase's pg_net and Vault, this transaction (rolled back) goes without them.
set local client_min_messages = warning;
drop extension if exists pg_net cascade;
drop extension if exists supabase_vault cascade;

-- Plain Postgres (the local stack): no pg_net, no Vault. The wake is a pg_notify on mdame_wake,
-- which the local edge host listens to; no secret is needed, so nothing can be missing.
select is(to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)'), null, 'this database has no pg_net');
select lives_ok($$ select mdame.wake_stage_runner('voice') $$, 'without pg_net the wake needs no secret');

-- Vault alone (pg_net not enabled) still wakes through pg_notify: both are needed for HTTP.
\ir ../../shims/vault.sql
select lives_ok($$ select mdame.wake_stage_runner('voice') $$, 'with Vault but no pg_net the wake still uses pg_notify');

-- pg_net alone (no Vault) cannot read the secrets, so it too stays on pg_notify, and queues nothing.
set local client_min_messages = warning;
drop schema vault cascade;
\ir ../../shims/pg_net.sql
select mdame.wake_stage_runner('voice');
select is((select count(*) from net.http_request_queue), 0::bigint, 'with pg_net but no Vault no HTTP request is queued');

select * from finish();
rollback;
