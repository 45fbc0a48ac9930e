begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('voice', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_voice((select msg_id from m), (select id from u), 'step:t:4:late',
                                                        tests.sample_voice('voice/late.mp3'), '[0]');

select is((select stage from r), 'plan', 'the unit stays where it is');
select is((select voice from mdame.work_units where id = (select id from u)), null, 'no voice is stored');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the late voice task is archived');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 0::bigint, 'no render job is enqueued');

select * from finish();
rollback;
