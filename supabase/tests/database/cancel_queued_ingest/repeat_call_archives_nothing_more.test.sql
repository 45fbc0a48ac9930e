begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select mdame.enqueue_stage_task('ingest', (select run_id from u), null, 'tech-explained') as msg_id;
select mdame.cancel_queued_ingest((select run_id from u));

select lives_ok(format('select mdame.cancel_queued_ingest(%L)', (select run_id from u)), 'a repeat with nothing left to cancel succeeds');
select is((select count(*) from pgmq.a_stage_tasks where msg_id = (select msg_id from m)), 1::bigint, 'the ingest task is archived once');

select * from finish();
rollback;
