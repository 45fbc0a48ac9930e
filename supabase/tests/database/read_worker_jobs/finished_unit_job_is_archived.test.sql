begin;
\ir ../_fixtures.psql
select plan(3);

-- A job past its limit whose unit is already over (published elsewhere, say): nothing to fail.
create temp table u as select * from tests.unit_at_stage('published');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
update pgmq.q_render set read_ct = 3, vt = now() - interval '1 second' where msg_id = (select msg_id from m);

select is((select count(*) from mdame.read_worker_jobs('render', 30, 5)), 0::bigint, 'the job is not handed out');
select ok(tests.archived('render', (select msg_id from m)), 'it is archived');
select is((select count(*) from mdame.dead_letters where msg_id = (select msg_id from m) and queue_name = 'render'), 0::bigint,
          'without a dead letter: the unit is over');

select * from finish();
rollback;
