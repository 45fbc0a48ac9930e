begin;
\ir ../_fixtures.psql
select plan(4);

-- Two queued scenes of one unit; a signed callback completes scene 1 but names scene 0's message.
create temp table u as select * from tests.unit_at_stage('media');
create temp table s0 as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table s1 as select * from tests.add_scene((select id from u), 1, 'queued');
create temp table m0 as select pgmq.send('visual_generation', (select job from s0)) as msg_id;

select throws_ok(format('select mdame.complete_visual_job(%s, %L, %L, %L, ''procedural-ffmpeg/1'', false, ''wh-other-scene'')',
                        (select msg_id from m0), (select id from s1), (select scene_hash from s1), 'scenes/' || (select scene_hash from s1) || '.mp4'),
                 'MDS01', null, 'a callback naming the message of another scene is refused');
select ok(tests.queue_has('visual_generation', (select msg_id from m0)), 'the other scene''s message stays queued');
select is((select status from mdame.scenes where id = (select id from s1)), 'queued', 'the scene the callback named is not completed');
select is((select count(*) from mdame.webhook_receipts where webhook_id = 'wh-other-scene'), 0::bigint, 'the webhook-id is not spent');

select * from finish();
rollback;
