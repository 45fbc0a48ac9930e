begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.set_engine_clock(interval '3 days');
create temp table u as select * from tests.unit_ready_to_publish();
create temp table m as select tests.send_task('publish', (select id from u)) as msg_id;
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
create temp table r as select * from mdame.record_publication((select msg_id from m), (select id from p), 'vid-clock', null);

select is((select published_at from mdame.publications where id = (select id from p)), now() + interval '3 days',
          'published_at is the engine''s clock (moved three days), not the database''s');
select is(mdame.schedule_analytics_fetches(), 0, 'its day-3 analytics window is not due yet on the moved clock');
select mdame.set_engine_clock(interval '6 days');
select is(mdame.schedule_analytics_fetches(), 1, 'three engine days later it is');

select * from finish();
rollback;
