begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('media');
insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key)
values ((select id from u), 0, 'p0', 'one two', 0, 3, repeat('a', 64), 'ready', 'scenes/a.mp4'),
       ((select id from u), 1, 'p1', 'three', 2, 3, repeat('b', 64), 'ready', 'scenes/b.mp4');
create temp table m as select tests.send_task('voice', (select id from u)) as msg_id;

create temp table r as select * from mdame.record_voice((select msg_id from m), (select id from u), 'step:t:4:x',
  '{"audio_key": "voice/k.mp3", "duration_ms": 2000, "provider": "edge-tts", "voice": "v",
    "words": [{"text": "one", "offset_ms": 0, "duration_ms": 300}, {"text": "two", "offset_ms": 400, "duration_ms": 300},
              {"text": "thr", "offset_ms": 800, "duration_ms": 200}, {"text": "ee", "offset_ms": 1000, "duration_ms": 200}]}',
  '[0, 3]');

select is((select stage from r), 'render', 'with every scene ready, the voice moves the unit to render');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the voice task is archived');
select is((select first_word from mdame.scenes where unit_id = (select id from u) and scene_index = 1), 3,
          'scene starts follow the aligned spoken words');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'one render job is enqueued');
select is((select message->'scenes'->1->>'first_word' from pgmq.q_render where message->>'unit_id' = (select id::text from u)), '3',
          'the render job carries the aligned scene starts');

select * from finish();
rollback;
