begin;
\ir ../_fixtures.psql
select plan(5);

-- Three units with a stage task each: one claimed, one claimed and then failed into its backoff,
-- one never read; then the first claim runs out.
create temp table u as select (tests.unit_at_stage('script')).id as id, n from generate_series(1, 3) n;
create temp table m as select u.n, tests.send_task('script', u.id) as msg_id from u;
update pgmq.q_stage_tasks set vt = clock_timestamp() + interval '1 hour' where msg_id = (select msg_id from m where n = 3);
update pgmq.q_stage_tasks set read_ct = 0 where msg_id = (select msg_id from m where n = 3);
select count(*) from mdame.claim_stage_tasks('runner-t', 10, 30);
-- The backoff: retry_or_dead_letter moves the visibility, the unit keeps its old lease.
select pgmq.set_vt('stage_tasks', (select msg_id from m where n = 2), 600);

select is((select state from mdame.stage_task_leases(clock_timestamp()) where msg_id = (select msg_id from m where n = 1)), 'leased',
          'a claimed task is leased');
select is((select holder from mdame.stage_task_leases(clock_timestamp()) where msg_id = (select msg_id from m where n = 1)),
          'runner-t/' || (select msg_id from m where n = 1) || '/1', 'by its holder');
select is((select state from mdame.stage_task_leases(clock_timestamp()) where msg_id = (select msg_id from m where n = 2)), 'retrying',
          'a task waiting out a backoff is retrying, not leased');
select is((select state from mdame.stage_task_leases(clock_timestamp()) where msg_id = (select msg_id from m where n = 3)), 'delayed',
          'a task sent with a delay and never read is delayed');
select is((select state from mdame.stage_task_leases(clock_timestamp() + interval '31 seconds') where msg_id = (select msg_id from m where n = 1)),
          'lease_expired', 'once the claim runs out, it has expired');

select * from finish();
rollback;
