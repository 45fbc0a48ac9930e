begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
select pgmq.delete('stage_tasks', (select msg_id from m));

select is(mdame.archive_stage_task((select msg_id from m)), false, 'a task no longer queued reports false');
select ok(not tests.archived('stage_tasks', (select msg_id from m)), 'and nothing is written to the archive');

select * from finish();
rollback;
