begin;
\ir ../_fixtures.psql
select plan(6);

create temp table a as select * from mdame.mark_account_needs_reconnect(tests.account_of('tech-explained'), 'invalid_grant: Token has been expired or revoked.');
select is((select row(health_state, health_reason)::text from a), row('needs_reconnect', 'invalid_grant: Token has been expired or revoked.')::text,
  'the account needs reconnecting, with the reason');
select is((select health_since from a), now(), 'since now');
select is((select detail->>'fix' from mdame.events where kind = 'account_needs_reconnect'),
  'mdame account connect youtube --dimension tech-explained --channel @tech-explained-demo', 'the event carries the command that fixes it');
select is((mdame.mark_account_needs_reconnect(tests.account_of('tech-explained'), 'a second 401')).health_reason,
  'invalid_grant: Token has been expired or revoked.', 'a repeat keeps the first reason');
select is((select count(*) from mdame.events where kind = 'account_needs_reconnect'), 1::bigint, 'and logs nothing more');
select throws_ok(format('select mdame.mark_account_needs_reconnect(%L, %L)', gen_random_uuid(), 'x'), 'MDN01', null, 'an unknown account is refused');

select * from finish();
rollback;
