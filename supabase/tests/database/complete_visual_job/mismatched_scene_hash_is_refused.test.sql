begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('media');
create temp table s as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table m as select pgmq.send('visual_generation', (select job from s)) as msg_id;

select throws_ok(format('select mdame.complete_visual_job(%s, %L, %L, ''scenes/wrong.mp4'', ''procedural-ffmpeg/1'', false, ''wh-mismatch'')',
                        (select msg_id from m), (select id from s), repeat('f', 64)),
                 'MDS01', null, 'a callback reporting another scene''s hash is refused');
select is((select (status, asset_key) from mdame.scenes where id = (select id from s)), ('queued'::text, null::text), 'the scene is unchanged');
select ok(tests.queue_has('visual_generation', (select msg_id from m)), 'the job stays queued');
select is(mdame.lookup_scene_cache(repeat('f', 64)), null, 'the cache learns nothing');

select * from finish();
rollback;
