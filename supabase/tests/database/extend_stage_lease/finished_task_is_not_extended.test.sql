begin;
\ir ../_fixtures.psql
select plan(3);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
create temp table c as select * from mdame.claim_stage_tasks('runner-a', 1, 30);
select mdame.record_script((select msg_id from m), (select id from u), 'step:t:1:x', '{"title": "T"}', (select lease_holder from c));
create temp table before as select lease_expires_at from mdame.work_units where id = (select id from u);

select is(mdame.extend_stage_lease((select msg_id from m), (select lease_holder from c), 300), false,
          'a heartbeat for a task already completed and archived reports the lease gone');
select is((select lease_expires_at from mdame.work_units where id = (select id from u)), (select lease_expires_at from before),
          'the unit''s lease expiry is unchanged');
select ok(not tests.queue_has('stage_tasks', (select msg_id from m)), 'the archived task is not brought back');

select * from finish();
rollback;
