begin;
\ir ../_fixtures.psql
select plan(5);

insert into mdame.dimension_accounts (dimension_id, platform, channel_handle) values ('tech-explained', 'youtube', '@tech-explained-second');
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p1 as select * from mdame.begin_publication((select id from u),
  (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'));
create temp table p2 as select * from mdame.begin_publication((select id from u),
  (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-second'));

select is((select (status, external_id) from mdame.record_publication((select msg_id from m), (select id from p1), 'vid-1', null)),
          ('published'::text, 'vid-1'::text), 'the publication comes back published with its video id');
select is((select stage from mdame.work_units where id = (select id from u)), 'publish', 'the unit stays at publish');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the publish task stays queued');

select is((select (status, external_id) from mdame.record_publication((select msg_id from m), (select id from p2), 'vid-2', null)),
          ('published'::text, 'vid-2'::text), 'the last account is recorded too');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'recording every account still leaves the archiving to complete_publication');

select * from finish();
rollback;
