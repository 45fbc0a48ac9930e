begin;
\ir ../_fixtures.psql
select plan(5);

-- Two scenes' jobs of two units of one run: one used up its attempts, the other is fresh.
create temp table u1 as select * from tests.unit_at_stage('media');
create temp table u2 as select * from tests.unit_at_stage('media');
update mdame.work_units set run_id = (select run_id from u1) where id = (select id from u2);
create temp table m1 as select pgmq.send('visual_generation', jsonb_build_object('unit_id', (select id from u1))) as msg_id;
create temp table m2 as select pgmq.send('visual_generation', jsonb_build_object('unit_id', (select id from u2))) as msg_id;
update pgmq.q_visual_generation set read_ct = 3, vt = now() - interval '1 second' where msg_id = (select msg_id from m1);
create temp table r as select * from mdame.read_worker_jobs('visual_generation', 30, 5);

select is((select array_agg(msg_id) from r), array[(select msg_id from m2)], 'only the job with attempts left is handed out');
select is((select stage from mdame.work_units where id = (select id from u1)), 'failed', 'the exhausted job''s unit fails');
select is((select stage from mdame.work_units where id = (select id from u2)), 'media', 'the other unit goes on');
select is((select status from mdame.pipeline_runs where id = (select run_id from u1)), 'running', 'and so does the run');
select ok(tests.queue_has('visual_generation', (select msg_id from m2)), 'the handed-out job stays queued under its lease');

select * from finish();
rollback;
