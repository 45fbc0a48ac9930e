begin;
\ir ../_fixtures.psql
select plan(7);

-- A heartbeat that names the job's owner extends only a job of that owner.
create temp table u1 as select * from tests.unit_at_stage('render');
create temp table u2 as select * from tests.unit_at_stage('media');
create temp table r as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u1), 'run_id', (select run_id from u1))) as msg_id;
create temp table s0 as select * from tests.add_scene((select id from u2), 0, 'queued');
create temp table s1 as select * from tests.add_scene((select id from u2), 1, 'queued');
create temp table v as select pgmq.send('visual_generation', (select job from s1)) as msg_id;
create temp table before as
  select 'render' as queue, vt from pgmq.q_render where msg_id = (select msg_id from r)
  union all select 'visual_generation', vt from pgmq.q_visual_generation where msg_id = (select msg_id from v);

select throws_ok(format('select * from mdame.extend_worker_job(''render'', %s, 600, %L)', (select msg_id from r), (select id from u2)),
                 'MDS01', null, 'a heartbeat naming another unit is refused');
select throws_ok(format('select * from mdame.extend_worker_job(''visual_generation'', %s, 600, %L, %L)', (select msg_id from v), (select id from u2), (select id from s0)),
                 'MDS01', null, 'a heartbeat naming another scene of the unit is refused');
select throws_ok(format('select * from mdame.extend_worker_job(''visual_generation'', %s, 600, %L)', (select msg_id from v), (select id from u2)),
                 '22023', null, 'a heartbeat on a visual job names its scene');
select is((select vt from pgmq.q_render where msg_id = (select msg_id from r)), (select vt from before where queue = 'render'),
          'the render job keeps its timeout');
select is((select vt from pgmq.q_visual_generation where msg_id = (select msg_id from v)), (select vt from before where queue = 'visual_generation'),
          'the visual job keeps its timeout');

select is((select count(*) from mdame.extend_worker_job('visual_generation', (select msg_id from v), 600, (select id from u2), (select id from s1))), 1::bigint,
          'the owner''s own heartbeat extends the job');
select ok((select vt > now() + interval '599 seconds' from pgmq.q_visual_generation where msg_id = (select msg_id from v)), 'for the new timeout');

select * from finish();
rollback;
