begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner', 10, 30) where msg_id = (select msg_id from m);
select mdame.record_publication((select msg_id from m), (mdame.begin_publication((select id from u), tests.account_of('tech-explained'))).id, 'video-1',
  (select lease_holder from c));
select is((select stage from mdame.defer_unit_publish((select msg_id from m), (select id from u), 'step:test', (select lease_holder from c))), 'published',
  'with nothing deferred the unit is published');
select is((select count(*) from mdame.step_results where step_token = 'step:test'), 1::bigint, 'and its step result stored');

select * from finish();
rollback;
