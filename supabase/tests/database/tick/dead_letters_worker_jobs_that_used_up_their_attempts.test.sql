begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('render');
-- A render job read three times (the limit) whose last lease has run out with no callback.
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
update pgmq.q_render set read_ct = 3, vt = now() - interval '1 second' where msg_id = (select msg_id from m);
-- And one still within its attempts, which the tick must leave alone.
create temp table u2 as select * from tests.unit_at_stage('render');
create temp table m2 as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u2))) as msg_id;
update pgmq.q_render set read_ct = 1, vt = now() - interval '1 second' where msg_id = (select msg_id from m2);

select is((mdame.tick()->>'dead_lettered')::int, 1, 'the tick dead-letters exactly the exhausted job');
select is((select last_error from mdame.dead_letters where msg_id = (select msg_id from m) and queue_name = 'render'),
          'attempts exhausted without a completion', 'with its reason and payload');
select ok(tests.archived('render', (select msg_id from m)), 'the exhausted message is archived');
select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'its unit fails explicitly');
select ok(tests.queue_has('render', (select msg_id from m2)), 'a job with attempts left stays queued');

select * from finish();
rollback;
