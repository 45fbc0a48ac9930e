begin;
\ir ../_fixtures.psql
select plan(3);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));

select is((select status from mdame.record_publication((select msg_id from m), (select id from p), 'vid-1', (select stale_holder from h))),
          'published', 'the upload a stale holder finished is recorded, so the current holder does not upload again');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays with its new holder');
select is((select stage from mdame.work_units where id = (select id from u)), 'publish', 'the unit stays at publish');

select * from finish();
rollback;
