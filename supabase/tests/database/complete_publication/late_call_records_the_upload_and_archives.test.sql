begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
-- The unit was failed (an operator abort) while its upload was in flight.
update mdame.work_units set stage = 'failed', error = 'aborted by operator: test' where id = (select id from u);
create temp table r as select * from mdame.complete_publication((select msg_id from m), (select id from p), 'vid-late', 'step:t:7:late');

select is((select stage from r), 'failed', 'the failed unit is returned unchanged');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the late publish task is archived');
select is((select (status, external_id) from mdame.publications where id = (select id from p)), ('published'::text, 'vid-late'::text),
          'the upload that happened is still recorded, so the video can be found');
select is(mdame.get_step_result('step:t:7:late'), null, 'no step result is stored');

select * from finish();
rollback;
