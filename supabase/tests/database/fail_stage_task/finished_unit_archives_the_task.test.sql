begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('rejected');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;

select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'timeout', true), 'gone',
          'a failure for a unit already finished reports the work gone');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'its task is archived instead of retried');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m)), 0::bigint, 'nothing is dead-lettered');
select is((select (stage, error) from mdame.work_units where id = (select id from u)), ('rejected'::text, null::text), 'the unit is unchanged');

select * from finish();
rollback;
