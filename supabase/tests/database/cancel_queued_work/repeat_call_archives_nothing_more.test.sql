begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;

select is(mdame.cancel_queued_work((select id from u)), 1, 'the first call cancels the queued task');
select is(mdame.cancel_queued_work((select id from u)), 0, 'the repeat finds nothing left to cancel');
select is((select count(*) from pgmq.a_stage_tasks where msg_id = (select msg_id from m)), 1::bigint, 'the task is archived once');

select * from finish();
rollback;
