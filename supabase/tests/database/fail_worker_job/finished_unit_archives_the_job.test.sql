begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('failed');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
select pgmq.read('render', 30, 1);

select is((select outcome from mdame.fail_worker_job('render', (select msg_id from m), (select id from u), 'ffmpeg crashed', true, 'wh-gone')), 'gone',
          'a failure for a unit already finished reports the work gone');
select ok(tests.archived('render', (select msg_id from m)), 'its job is archived, so no worker picks it up again');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m)), 0::bigint, 'nothing is dead-lettered');
select is((select (stage, error) from mdame.work_units where id = (select id from u)), ('failed'::text, null::text), 'the unit is unchanged');

select * from finish();
rollback;
