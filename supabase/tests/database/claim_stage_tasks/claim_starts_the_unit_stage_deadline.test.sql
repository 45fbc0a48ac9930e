begin;
\ir ../_fixtures.psql
select plan(3);

-- A script task that waited in the queue well past the deadline its unit got at stage entry.
delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_at_stage('script');
select mdame.enqueue_stage_task('script', (select run_id from u), (select id from u));
update mdame.work_units set stage_deadline = now() - interval '2 hours' where id = (select id from u);
create temp table other as select * from tests.unit_at_stage('plan');
select mdame.enqueue_stage_task('script', (select run_id from other), (select id from other));
update mdame.work_units set stage_deadline = now() - interval '2 hours' where id = (select id from other);

create temp table c as select clock_timestamp() as before_claim, (select count(*) from mdame.claim_stage_tasks('runner-a', 10, 60)) as claimed;

select is((select claimed from c), 2::bigint, 'both tasks are claimed');
select ok((select stage_deadline between (select before_claim from c) + interval '900 seconds' and clock_timestamp() + interval '900 seconds'
             from mdame.work_units where id = (select id from u)),
          'the claim starts the unit''s script deadline (900 s) at the lease');
select is((select stage_deadline from mdame.work_units where id = (select id from other)), now() - interval '2 hours',
          'a task of another stage than the unit''s leaves its deadline alone');

select * from finish();
rollback;
