begin;
\ir ../_fixtures.psql
select plan(6);

delete from pgmq.q_stage_tasks;
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table h as select * from tests.stale_and_current_claim((select msg_id from m));
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));

create temp table late as select * from mdame.complete_publication((select msg_id from m), (select id from p), 'vid-1', 'step:t:7:a',
                                                                   (select stale_holder from h));
select is((select stage from late), 'publish', 'the stale holder does not publish the unit');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the task stays with its new holder');
select is(mdame.get_step_result('step:t:7:a'), null, 'no step result is stored');
select is((select (status, external_id) from mdame.publications where id = (select id from p)), ('published'::text, 'vid-1'::text),
          'the upload it finished is recorded on the publication, so the current holder does not upload again');

create temp table fresh as select * from mdame.complete_publication((select msg_id from m), (select id from p), 'vid-1', 'step:t:7:b',
                                                                    (select current_holder from h));
select is((select stage from fresh), 'published', 'the current holder publishes the unit');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'and archives the task');

select * from finish();
rollback;
