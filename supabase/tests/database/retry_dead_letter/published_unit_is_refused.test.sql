begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
update pgmq.q_stage_tasks set read_ct = 3 where msg_id = (select msg_id from m);
select mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'model down', true);
create temp table dl as select id from mdame.dead_letters where msg_id = (select msg_id from m);
-- Published since, by an operator's own means.
update mdame.work_units set stage = 'published' where id = (select id from u);

select throws_ok(format('select mdame.retry_dead_letter(%s)', (select id from dl)), 'MDS01', null, 'a dead letter of a published unit is not retried');
select is((select retried_at from mdame.dead_letters where id = (select id from dl)), null, 'the dead letter is not marked retried');
select is(tests.queued_count('stage_tasks', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'nothing is queued');

select * from finish();
rollback;
