begin;
\ir ../_fixtures.psql
select plan(2);

-- A signed callback for a real scene naming a message the queue never held.
create temp table u as select * from tests.unit_at_stage('media');
create temp table s as select * from tests.add_scene((select id from u), 0, 'queued');

select throws_ok(format('select mdame.complete_visual_job(987654321, %L, %L, %L, ''procedural-ffmpeg/1'', false, ''wh-no-msg'')',
                        (select id from s), (select scene_hash from s), 'scenes/' || (select scene_hash from s) || '.mp4'),
                 'MDN01', null, 'a message the queue never held is refused');
select is((select status from mdame.scenes where id = (select id from s)), 'queued', 'the scene is not completed');

select * from finish();
rollback;
