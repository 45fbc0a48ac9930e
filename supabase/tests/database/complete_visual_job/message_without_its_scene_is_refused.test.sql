begin;
\ir ../_fixtures.psql
select plan(4);

-- A visual_generation job belongs to one scene of its unit: a message of the unit that names no
-- scene, or the scene's id with another index, is not this scene's job.
create temp table u as select * from tests.unit_at_stage('media');
create temp table s as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table m_none as select pgmq.send('visual_generation', (select job - 'scene_id' from s)) as msg_id;
create temp table m_index as select pgmq.send('visual_generation', (select job || '{"scene_index": 4}' from s)) as msg_id;

select throws_ok(format('select mdame.complete_visual_job(%s, %L, %L, %L, ''procedural-ffmpeg/1'', false, ''wh-no-scene'')',
                        (select msg_id from m_none), (select id from s), (select scene_hash from s), 'scenes/' || (select scene_hash from s) || '.mp4'),
                 'MDS01', null, 'a message naming no scene completes no scene');
select throws_ok(format('select mdame.complete_visual_job(%s, %L, %L, %L, ''procedural-ffmpeg/1'', false, ''wh-other-index'')',
                        (select msg_id from m_index), (select id from s), (select scene_hash from s), 'scenes/' || (select scene_hash from s) || '.mp4'),
                 'MDS01', null, 'a message naming another scene index completes no scene');
select is((select status from mdame.scenes where id = (select id from s)), 'queued', 'the scene stays queued');
select ok(tests.queue_has('visual_generation', (select msg_id from m_none)) and tests.queue_has('visual_generation', (select msg_id from m_index)),
          'both messages stay queued');

select * from finish();
rollback;
