begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('media');
select tests.add_scene((select id from u), 0, 'ready');
select tests.add_scene((select id from u), 1, 'ready');
create temp table m as select tests.send_task('voice', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));

create temp table late as select * from mdame.record_voice((select msg_id from m), (select id from u), 'step:t:4:a',
                                                           tests.sample_voice('voice/stale.mp3'), '[0, 2]', (select stale_holder from h));
select is((select stage from late), 'media', 'the stale holder''s voice is refused');
select is((select voice from mdame.work_units where id = (select id from u)), null, 'no voice is stored');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays with its new holder');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'no render job is enqueued');

create temp table fresh as select * from mdame.record_voice((select msg_id from m), (select id from u), 'step:t:4:b',
                                                            tests.sample_voice('voice/current.mp3'), '[0, 2]', (select current_holder from h));
select is((select stage from fresh), 'render', 'the current holder''s voice completes the media stage');
select is((select voice->>'audio_key' from mdame.work_units where id = (select id from u)), 'voice/current.mp3', 'with its own audio');

select * from finish();
rollback;
