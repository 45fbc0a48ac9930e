begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
create temp table r as select * from mdame.start_run('k-ingest-stale', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
-- Read once before, so the stale claim is the second read and the current one the last allowed (third).
update pgmq.q_stage_tasks set read_ct = 1 where msg_id = (select msg_id from m);
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));
create temp table before as select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m);

select is((select current_holder from h), 'runner-b/' || (select msg_id from m) || '/3', 'the current claim is the task''s third read');
select is(mdame.fail_stage_task((select msg_id from m), 'ingest', null, (select run_id from r), 'tech-explained', 'late timeout', true,
                                (select stale_holder from h)), 'stale', 'a failure from a superseded claim of an ingest task is refused');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays with its current holder');
select is((select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m)), (select vt from before), 'its visibility is unchanged');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m)), 0::bigint, 'nothing is dead-lettered');
select is((select status from mdame.run_dimensions where run_id = (select run_id from r)), 'ingesting', 'the dimension is still ingesting');

select * from finish();
rollback;
