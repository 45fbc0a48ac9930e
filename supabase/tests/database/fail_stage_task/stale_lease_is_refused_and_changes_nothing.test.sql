begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));
create temp table before as select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m);

select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'late timeout', true,
                                (select stale_holder from h)), 'stale', 'a failure from a superseded claim is refused');
select is((select vt from pgmq.q_stage_tasks where msg_id = (select msg_id from m)), (select vt from before), 'no retry is scheduled over the current claim');
select is((select (stage_attempts, error) from mdame.work_units where id = (select id from u)), (0, null::text), 'the unit''s attempts and error are untouched');

update pgmq.q_stage_tasks set read_ct = 3 where msg_id = (select msg_id from m);
select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'late crash', false,
                                (select stale_holder from h)), 'stale', 'even a final failure from a superseded claim is refused');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m)), 0::bigint, 'nothing is dead-lettered');
select is((select stage from mdame.work_units where id = (select id from u)), 'script', 'the unit stays with its current holder');

select * from finish();
rollback;
