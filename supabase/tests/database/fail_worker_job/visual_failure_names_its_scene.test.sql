begin;
\ir ../_fixtures.psql
select plan(4);

-- A visual_generation job belongs to a scene: a failure that names none, names an unknown one or
-- one of another unit is refused before anything changes.
create temp table u as select * from tests.unit_at_stage('media');
create temp table other as select * from tests.unit_at_stage('media');
create temp table s as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table s_other as select * from tests.add_scene((select id from other), 0, 'queued');
create temp table m as select pgmq.send('visual_generation', (select job from s)) as msg_id;

select throws_ok(format('select mdame.fail_worker_job(''visual_generation'', %s, %L, ''gpu lost'', true, ''wh-none'')', (select msg_id from m), (select id from u)),
                 '22023', 'a visual_generation failure names its scene (scene_id)', 'a failure without its scene is refused');
select throws_ok(format('select mdame.fail_worker_job(''visual_generation'', %s, %L, ''gpu lost'', true, ''wh-unknown'', %L)',
                        (select msg_id from m), (select id from u), gen_random_uuid()),
                 'MDN01', null, 'a failure naming an unknown scene is refused');
select throws_ok(format('select mdame.fail_worker_job(''visual_generation'', %s, %L, ''gpu lost'', true, ''wh-foreign'', %L)',
                        (select msg_id from m), (select id from u), (select id from s_other)),
                 'MDS01', null, 'a failure naming a scene of another unit is refused');
select is((select read_ct from pgmq.q_visual_generation where msg_id = (select msg_id from m)), 0, 'the job is untouched');

select * from finish();
rollback;
