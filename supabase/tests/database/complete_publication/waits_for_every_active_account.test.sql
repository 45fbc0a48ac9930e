begin;
\ir ../_fixtures.psql
select plan(6);

insert into mdame.dimension_accounts (dimension_id, platform, channel_handle) values ('tech-explained', 'youtube', '@tech-explained-second');
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p1 as select * from mdame.begin_publication((select id from u),
  (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'));
create temp table p2 as select * from mdame.begin_publication((select id from u),
  (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-second'));

select is((mdame.complete_publication((select msg_id from m), (select id from p1), 'vid-1', 'step:t:7:x')).stage, 'publish',
          'with one account still to go, the unit stays at publish');
select is((select (status, external_id) from mdame.publications where id = (select id from p1)), ('published'::text, 'vid-1'::text),
          'the first publication is recorded');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the publish task stays queued');

select is((mdame.complete_publication((select msg_id from m), (select id from p2), 'vid-2', 'step:t:7:x')).stage, 'published',
          'the last account publishes the unit');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the publish task is archived');
select is(jsonb_array_length(mdame.get_step_result('step:t:7:x')), 2, 'the step result lists both publications');

select * from finish();
rollback;
