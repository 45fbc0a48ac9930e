begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
create temp table r as select * from mdame.read_worker_jobs('render', 30, 5);

select is((select count(*) from r), 1::bigint, 'the visible job is handed out');
select is((select read_ct from r), 1, 'with its read count raised, as pgmq.read does');
select ok((select vt from r) > now() + interval '25 seconds', 'and hidden for the visibility timeout');
select is((select message->>'unit_id' from r), (select id::text from u), 'carrying its payload');
select is((select count(*) from mdame.read_worker_jobs('render', 30, 5)), 0::bigint, 'a job under lease is not handed out again');

select * from finish();
rollback;
