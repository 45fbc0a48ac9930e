begin;
\ir ../_fixtures.psql
select plan(6);

create temp table u as select * from tests.unit_at_stage('media');
select tests.add_scene((select id from u), 0, 'ready');
select tests.add_scene((select id from u), 1, 'queued');
create temp table m1 as select tests.send_task('voice', (select id from u)) as msg_id;
create temp table first as select * from mdame.record_voice((select msg_id from m1), (select id from u), 'step:t:4:x',
                                                            tests.sample_voice('voice/first.mp3'), '[0, 2]');
select is((select stage from first), 'media', 'with a scene still queued, the voice alone keeps the unit at media');

-- The same voice task delivered again, and synthesised differently this time.
create temp table m2 as select tests.send_task('voice', (select id from u)) as msg_id;
create temp table second as select * from mdame.record_voice((select msg_id from m2), (select id from u), 'step:t:4:x',
                                                             tests.sample_voice('voice/second.mp3'), '[0, 1]');
select is((select stage from second), 'media', 'the repeat returns the unit at media');
select is((select voice->>'audio_key' from mdame.work_units where id = (select id from u)), 'voice/first.mp3', 'the first voice is kept');
select is((select first_word from mdame.scenes where unit_id = (select id from u) and scene_index = 1), 2, 'and the scene starts aligned to it');
select ok(tests.archived('stage_tasks', (select msg_id from m2)), 'the repeated task is archived');
select is(tests.event_count((select id from u), 'voice_recorded'), 1::bigint, 'the voice is recorded once');

select * from finish();
rollback;
