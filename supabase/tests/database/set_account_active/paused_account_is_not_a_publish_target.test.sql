begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_ready_to_publish();
select is((mdame.set_account_active(tests.account_of('tech-explained'), false)).active, false, 'the account is paused');
select is((select count(*)::int from mdame.get_publish_targets((select id from u))), 0, 'publishing skips it');

select * from finish();
rollback;
