begin;
\ir ../_fixtures.psql
select plan(7);

-- Two units far past their deadlines whose work only waits for a reader: one task never read, one
-- render job back in the queue after its lease ran out, its unit with no attempts left.
delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u));
update mdame.work_units set stage_deadline = now() - interval '6 hours' where id = (select id from u);
create temp table v as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from v))) as msg_id;
update pgmq.q_render set read_ct = 1, vt = now() - interval '1 minute' where msg_id = (select msg_id from m);
update mdame.work_units set stage_deadline = now() - interval '6 hours', stage_attempts = 3 where id = (select id from v);

create temp table r as select mdame.recover_overdue_work() as result;

select is((select result from r), '{"requeued": 0, "failed": 0}'::jsonb, 'work waiting in its queue is neither re-enqueued nor failed');
select is(tests.queued_count('stage_tasks', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'one task for the unit');
select is((select stage_attempts from mdame.work_units where id = (select id from u)), 0, 'the wait spends no attempt');
select is((select stage_deadline from mdame.work_units where id = (select id from u)), now() + interval '900 seconds',
          'its next check is a stage deadline away');
select is((select (stage, stage_attempts) from mdame.work_units where id = (select id from v)), ('render'::text, 3),
          'a unit whose job waits again after a lease ran out is not failed by the wait');
select ok(tests.queue_has('render', (select msg_id from m)), 'and its job stays queued for the next reader');
select is((select count(*) from mdame.events where unit_id in ((select id from u), (select id from v)) and kind = 'recovered'), 0::bigint,
          'nothing is recorded as recovered');

select * from finish();
rollback;
