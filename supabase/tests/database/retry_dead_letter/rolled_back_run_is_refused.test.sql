begin;
\ir ../_fixtures.psql
select plan(5);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
-- A second unit of the same run, still at work.
insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage)
select run_id, dimension_id, md5(random()::text), md5(random()::text), '{"title": "Other topic"}', 'plan' from u;
update pgmq.q_stage_tasks set read_ct = 3 where msg_id = (select msg_id from m);
select mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'model down', false);
create temp table dl as select id from mdame.dead_letters where msg_id = (select msg_id from m);
-- The other unit of the run is still at work, so the run stays open; the operator aborts it.
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run is open when the operator aborts it');
select mdame.abort_run((select run_id from u), 'bad batch');

select throws_ok(format('select mdame.retry_dead_letter(%s)', (select id from dl)), 'MDS01', null,
                 'a dead letter of a rolled-back run is not retried');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'rolled_back', 'the run stays rolled back');
select is((select retried_at from mdame.dead_letters where id = (select id from dl)), null, 'the dead letter stays unretried');
select is(tests.queued_count('stage_tasks', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'and nothing is queued for the unit');

select * from finish();
rollback;
