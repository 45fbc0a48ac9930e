begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('script');
create temp table m as select tests.send_task('script', (select id from u)) as msg_id;
select mdame.reject_unit((select msg_id from m), (select id from u), 'script', 'step:t:1:rej', 'hook audit failed twice');

select is((mdame.reject_unit((select msg_id from m), (select id from u), 'script', 'step:t:1:rej', 'hook audit failed twice')).stage, 'rejected',
          'the repeat returns the rejected unit');
select is(tests.event_count((select id from u), 'stage_entered', 'rejected'), 1::bigint, 'the unit is rejected once');
select is((select count(*) from mdame.events where run_id = (select run_id from u) and kind = 'run_completed'), 1::bigint, 'the run is closed once');

select * from finish();
rollback;
