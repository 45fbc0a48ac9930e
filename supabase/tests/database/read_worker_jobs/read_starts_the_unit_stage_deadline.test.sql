begin;
\ir ../_fixtures.psql
select plan(3);

-- A render job that waited in the queue well past the deadline its unit got at stage entry.
delete from pgmq.q_render;
create temp table u as select * from tests.unit_at_stage('render');
select pgmq.send('render', jsonb_build_object('unit_id', (select id from u), 'run_id', (select run_id from u)));
update mdame.work_units set stage_deadline = now() - interval '3 hours' where id = (select id from u);

create temp table c as select clock_timestamp() as before_read, (select count(*) from mdame.read_worker_jobs('render', 30, 5)) as handed_out;

select is((select handed_out from c), 1::bigint, 'the job is handed out');
select ok((select stage_deadline between (select before_read from c) + interval '3600 seconds' and clock_timestamp() + interval '3600 seconds'
             from mdame.work_units where id = (select id from u)),
          'the read starts the unit''s render deadline (3600 s) at the lease');
select is(mdame.recover_overdue_work(), '{"requeued": 0, "failed": 0}'::jsonb, 'so the recovery pass finds nothing overdue');

select * from finish();
rollback;
