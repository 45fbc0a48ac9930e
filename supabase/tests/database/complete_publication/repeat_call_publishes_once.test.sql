begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select mdame.complete_publication((select msg_id from m), (select id from p), 'vid-1', 'step:t:7:x');

select is((mdame.complete_publication((select msg_id from m), (select id from p), 'vid-1', 'step:t:7:x')).stage, 'published',
          'the repeat returns the published unit');
select is(tests.event_count((select id from u), 'published', 'publish'), 1::bigint, 'the publication is logged once');
select is(tests.event_count((select id from u), 'stage_entered', 'published'), 1::bigint, 'the unit is published once');
select is((select count(*) from mdame.events where run_id = (select run_id from u) and kind = 'run_completed'), 1::bigint, 'the run is closed once');

select * from finish();
rollback;
