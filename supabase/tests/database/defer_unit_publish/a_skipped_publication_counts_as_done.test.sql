begin;
\ir ../_fixtures.psql
select plan(2);

-- tech-explained publishes to YouTube (deferred) and to a Facebook Page that will not take the video.
create temp table fb as select (mdame.connect_account('tech-explained', 'facebook', 'Sky Facts', '100000000000777', '100000000000001')).id;
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
select mdame.skip_publication((mdame.begin_publication((select id from u), (select id from fb))).id, 'the video lasts 120 s; Facebook Reels last 3 to 90 s');
select mdame.defer_publication((mdame.begin_publication((select id from u), (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'))).id,
  'quota_spent', now() + interval '5 hours');

select is((mdame.defer_unit_publish((select msg_id from m), (select id from u), 'step:test')).stage, 'deferred',
  'the unit waits for its deferred account; the skipped one is not open');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the publish task is archived');

select * from finish();
rollback;
