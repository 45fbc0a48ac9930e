begin;
\ir ../_fixtures.psql
select plan(7);

-- Two queued scenes of one unit, each with its job; a signed failure names scene 0 but carries
-- scene 1's message, once as retriable and once as final.
create temp table u as select * from tests.unit_at_stage('media');
create temp table s0 as select * from tests.add_scene((select id from u), 0, 'queued');
create temp table s1 as select * from tests.add_scene((select id from u), 1, 'queued');
create temp table m0 as select pgmq.send('visual_generation', (select job from s0)) as msg_id;
create temp table m1 as select pgmq.send('visual_generation', (select job from s1)) as msg_id;
create temp table before as select vt, read_ct from pgmq.q_visual_generation where msg_id = (select msg_id from m1);

select throws_ok(format('select mdame.fail_worker_job(''visual_generation'', %s, %L, ''gpu lost'', true, ''wh-retry'', %L)',
                        (select msg_id from m1), (select id from u), (select id from s0)),
                 'MDS01', format('visual_generation message %s is the job of scene %s (index 1) of unit %s, not of scene %s (index 0)',
                                 (select msg_id from m1), (select id from s1), (select id from u), (select id from s0)),
                 'a retriable failure naming the message of another scene is refused, naming both scenes');
select throws_ok(format('select mdame.fail_worker_job(''visual_generation'', %s, %L, ''gpu lost'', false, ''wh-final'', %L)',
                        (select msg_id from m1), (select id from u), (select id from s0)),
                 'MDS01', null, 'so is a final one');
select is((select (vt, read_ct) from pgmq.q_visual_generation where msg_id = (select msg_id from m1)), (select (vt, read_ct) from before),
          'the other scene''s job is not rescheduled');
select is((select count(*) from mdame.dead_letters where queue_name = 'visual_generation'), 0::bigint, 'nothing is dead-lettered');
select is((select stage from mdame.work_units where id = (select id from u)), 'media', 'the unit goes on');
select is((select count(*) from mdame.webhook_receipts where webhook_id in ('wh-retry', 'wh-final')), 0::bigint, 'the webhook-ids are not spent');

select is((select outcome from mdame.fail_worker_job('visual_generation', (select msg_id from m0), (select id from u), 'gpu lost', true, 'wh-own', (select id from s0))), 'retry',
          'the scene''s own message is retried');

select * from finish();
rollback;
