begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select mdame.record_publication((select msg_id from m), (select id from p), 'vid-1', null);

create temp table done as select * from mdame.complete_publication((select msg_id from m), (select id from p), 'vid-1', 'step:t:7:r');
select is((select stage from done), 'published', 'complete_publication publishes the unit whose accounts are all recorded');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'and archives the task');
select is(mdame.get_step_result('step:t:7:r'), '[{"platform": "youtube", "external_id": "vid-1"}]'::jsonb, 'the step result lists the recorded publication');
select is((select count(*)::int from mdame.events where unit_id = (select id from u) and kind = 'published'), 1,
          'the publication is logged once, by record_publication');

select * from finish();
rollback;
