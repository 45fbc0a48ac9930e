begin;
\ir ../_fixtures.psql
select plan(5);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table first_claim as select * from mdame.claim_stage_tasks('runner-a', 1, 30);
-- runner-a stalls past its lease; runner-b claims the same task.
update pgmq.q_stage_tasks set vt = now() - interval '1 second';
create temp table second_claim as select * from mdame.claim_stage_tasks('runner-b', 1, 30);

create temp table late as select * from mdame.record_script((select msg_id from m), (select id from u), 'step:t:1:a', '{"title": "From A"}',
                                                             (select lease_holder from first_claim));
select is((select stage from late), 'script', 'the stale holder''s result is refused');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'and the message stays with its new holder');

create temp table fresh as select * from mdame.record_script((select msg_id from m), (select id from u), 'step:t:1:b', '{"title": "From B"}',
                                                              (select lease_holder from second_claim));
select is((select stage from fresh), 'safety', 'the current holder completes the stage');
select is((select script->>'title' from mdame.work_units where id = (select id from u)), 'From B', 'with its own result');
select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'late failure', true,
                                (select lease_holder from first_claim)), 'gone', 'a stale failure report after completion changes nothing');

select * from finish();
rollback;
