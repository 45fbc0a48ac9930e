begin;
\ir ../_fixtures.psql
select plan(5);

create temp table no_voice as select * from tests.unit_at_stage('media');
select tests.add_scene((select id from no_voice), 0, 'ready');
select is((mdame.enqueue_render_if_ready((select id from no_voice))).stage, 'media', 'without a voice the unit waits at media');

create temp table scene_queued as select * from tests.unit_at_stage('media');
update mdame.work_units set voice = tests.sample_voice('voice/q.mp3') where id = (select id from scene_queued);
select tests.add_scene((select id from scene_queued), 0, 'ready');
select tests.add_scene((select id from scene_queued), 1, 'queued');
select is((mdame.enqueue_render_if_ready((select id from scene_queued))).stage, 'media', 'with a scene still queued the unit waits at media');

create temp table no_scenes as select * from tests.unit_at_stage('media');
update mdame.work_units set voice = tests.sample_voice('voice/n.mp3') where id = (select id from no_scenes);
select is((mdame.enqueue_render_if_ready((select id from no_scenes))).stage, 'media', 'with no scenes planned the unit waits at media');

create temp table past_media as select * from tests.unit_at_stage('publish');
update mdame.work_units set voice = tests.sample_voice('voice/p.mp3') where id = (select id from past_media);
select tests.add_scene((select id from past_media), 0, 'ready');
select is((mdame.enqueue_render_if_ready((select id from past_media))).stage, 'publish', 'a unit past media is returned unchanged');

select is((select count(*) from pgmq.q_render), 0::bigint, 'no render job is enqueued for any of them');

select * from finish();
rollback;
