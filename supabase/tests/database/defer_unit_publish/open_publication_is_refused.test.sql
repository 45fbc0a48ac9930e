begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.dimension_accounts (dimension_id, platform, channel_handle) values ('tech-explained', 'youtube', '@second');
-- Created in the same transaction as the fixture's account: name each by its channel, not by age.
create temp table first_account as select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo';
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner', 10, 30) where msg_id = (select msg_id from m);
select mdame.defer_publication((mdame.begin_publication((select id from u), (select id from first_account))).id, 'channel_cap', now() + interval '1 hour');

select throws_ok(format('select mdame.defer_unit_publish(%s, %L, %L, %L)', (select msg_id from m), (select id from u), 'step:test', (select lease_holder from c)),
  'MDS01', null, 'an account with no publication yet (neither published nor deferred) keeps the unit at publish');
select is((select stage from mdame.work_units where id = (select id from u)), 'publish', 'the unit is still at publish');
select is((select stage from mdame.defer_unit_publish((select msg_id from m), (select id from u), 'step:test', 'someone-else')), 'publish',
  'a stale lease changes nothing');

select * from finish();
rollback;
