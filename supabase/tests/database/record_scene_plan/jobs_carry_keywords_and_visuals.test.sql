begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
select mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:3:k',
  jsonb_build_array(
    jsonb_build_object('index', 0, 'prompt', 'p0', 'narration', 'one', 'first_word', 0, 'duration_s', 3, 'scene_hash', repeat('1', 64),
                       'keywords', '["solar", "roof"]'::jsonb),
    jsonb_build_object('index', 1, 'prompt', 'p1', 'narration', 'two', 'first_word', 1, 'duration_s', 3, 'scene_hash', repeat('2', 64))),
  '{"style": {"motion": "drift"}, "visuals": {"backends": ["pexels", "procedural"], "pexels_blocklist": ["casino"]}, "width": 720, "height": 1280, "fps": 30}');

select is((select message->'keywords' from pgmq.q_visual_generation where message->>'scene_hash' = repeat('1', 64)), '["solar", "roof"]'::jsonb,
          'a job carries its scene''s keywords');
select is((select message->'visuals' from pgmq.q_visual_generation where message->>'scene_hash' = repeat('1', 64)),
          '{"backends": ["pexels", "procedural"], "pexels_blocklist": ["casino"]}'::jsonb, 'and the dimension''s visuals');
select ok((select not (message ? 'keywords') from pgmq.q_visual_generation where message->>'scene_hash' = repeat('2', 64)),
          'a scene planned without keywords has none in its job');
select is((select count(*) from mdame.scenes where unit_id = (select id from u) and backend is null), 2::bigint, 'queued scenes name no backend yet');

select * from finish();
rollback;
