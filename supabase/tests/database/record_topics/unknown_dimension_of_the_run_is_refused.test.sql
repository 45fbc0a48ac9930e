begin;
\ir ../_fixtures.psql
select plan(3);

create temp table r as select * from mdame.start_run('k-one-dim', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';

select throws_ok(format($$ select mdame.record_topics(%s, %L, 'sains-singkat', 'step:t:0:x', '[{"unit_key": "k", "fingerprint": "f", "title": "T"}]', '[]') $$,
                        (select msg_id from m), (select run_id from r)),
                 'MDN01', null, 'topics for a dimension the run does not cover are refused');
select is((select count(*) from mdame.work_units where run_id = (select run_id from r)), 0::bigint, 'no unit is created');
select ok(tests.queue_has('stage_tasks', (select msg_id from m)), 'the run''s own ingest task stays queued');

select * from finish();
rollback;
