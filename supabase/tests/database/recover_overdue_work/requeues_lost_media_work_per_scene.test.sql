begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('media');
select tests.add_scene((select id from u), 0, 'ready');
create temp table lost as select * from tests.add_scene((select id from u), 1, 'queued');
update mdame.work_units set stage_deadline = now() - interval '1 second' where id = (select id from u);

select is((mdame.recover_overdue_work()->>'requeued')::int, 1, 'the unit''s lost media work is re-enqueued');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'voice', 'unit_id', (select id from u))), 1::bigint,
          'the voice task, as no voice is stored');
select is(tests.queued_count('visual_generation', jsonb_build_object('unit_id', (select id from u))), 1::bigint,
          'one visual job, for the scene not yet ready');
select is((select message from pgmq.q_visual_generation where message->>'unit_id' = (select id::text from u)), (select job from lost),
          'sending the scene''s stored job again');
select is((select msg_id from mdame.scenes where id = (select id from lost)),
          (select msg_id from pgmq.q_visual_generation where message->>'unit_id' = (select id::text from u)), 'the scene records the new message');

select * from finish();
rollback;
