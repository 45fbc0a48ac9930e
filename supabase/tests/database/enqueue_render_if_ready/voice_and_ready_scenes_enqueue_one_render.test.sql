begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('media');
update mdame.work_units set voice = tests.sample_voice('voice/v.mp3') where id = (select id from u);
select tests.add_scene((select id from u), 0, 'ready');
select tests.add_scene((select id from u), 1, 'ready');
create temp table r as select * from mdame.enqueue_render_if_ready((select id from u));

select is((select stage from r), 'render', 'the unit moves to render');
select isnt((select stage_deadline from r), null, 'with the render deadline running');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'one render job is enqueued');
select is((select (message->>'audio_key', jsonb_array_length(message->'scenes')) from pgmq.q_render where message->>'unit_id' = (select id::text from u)),
          ('voice/v.mp3'::text, 2), 'the job carries the voice and every scene');
select alike((select message->>'step_token' from pgmq.q_render where message->>'unit_id' = (select id::text from u)),
             'step:' || (select id from u) || ':6:%', 'under the unit''s render step token');

select * from finish();
rollback;
