begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
update pgmq.q_stage_tasks set read_ct = 1 where msg_id = (select msg_id from m);

select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'bad output', false), 'dead_letter',
          'a final failure dead-letters the task');
select is(mdame.fail_stage_task((select msg_id from m), 'script', (select id from u), (select run_id from u), null, 'bad output', false), 'gone',
          'the same report again finds it gone');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m)), 1::bigint, 'one dead letter');
select is(tests.event_count((select id from u), 'stage_entered', 'failed'), 1::bigint, 'the unit fails once');

select * from finish();
rollback;
