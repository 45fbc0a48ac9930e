begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.mark_account_needs_reconnect(tests.account_of('tech-explained'), 'invalid_grant');
create temp table a as select * from mdame.store_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.Y2lwaGVy');
select is((select row(health_state, health_reason)::text from a), row('ok', null::text)::text, 'a new grant makes the account healthy again');
select is((select count(*) from mdame.events where kind = 'account_reconnected'), 1::bigint, 'an event says so');
create temp table u as select * from tests.unit_ready_to_publish();
select is((select count(*) from mdame.get_publish_targets((select id from u)) where health_state = 'ok'), 1::bigint,
  'the publish stage sees it healthy');

select * from finish();
rollback;
