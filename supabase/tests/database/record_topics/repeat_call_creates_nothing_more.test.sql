begin;
\ir ../_fixtures.psql
select plan(5);

create temp table r as select * from mdame.start_run('k-topics-again', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
create temp table first as select * from mdame.record_topics((select msg_id from m), (select run_id from r), 'tech-explained', 'step:t:0:topics',
  '[{"unit_key": "k1", "fingerprint": "f1", "title": "One"}]', '[{"title": "Casino night", "reasons": ["category:gambling"]}]');
create temp table second as select * from mdame.record_topics((select msg_id from m), (select run_id from r), 'tech-explained', 'step:t:0:topics',
  '[{"unit_key": "k1", "fingerprint": "f1", "title": "One"}]', '[{"title": "Casino night", "reasons": ["category:gambling"]}]');

select is((select (status, units_created, topics_seen) from second), (select (status, units_created, topics_seen) from first),
          'the repeat returns the dimension as the first call left it');
select is((select count(*) from mdame.work_units where run_id = (select run_id from r)), 1::bigint, 'one unit');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'script', 'run_id', (select run_id from r))), 1::bigint, 'one script task');
select is((select count(*) from mdame.safety_audit_logs where run_id = (select run_id from r)), 1::bigint, 'one audited rejection');
select is((select count(*) from mdame.events where run_id = (select run_id from r) and kind = 'topics_recorded'), 1::bigint, 'the topics are recorded once');

select * from finish();
rollback;
