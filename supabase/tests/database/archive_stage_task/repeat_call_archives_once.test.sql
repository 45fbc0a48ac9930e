begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;

select is(mdame.archive_stage_task((select msg_id from m)), true, 'the first call archives the task');
select is(mdame.archive_stage_task((select msg_id from m)), false, 'the repeat reports it already gone');
select is((select count(*) from pgmq.a_stage_tasks where msg_id = (select msg_id from m)), 1::bigint, 'the archive holds it once');

select * from finish();
rollback;
