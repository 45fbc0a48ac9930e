begin;
\ir ../_fixtures.psql
select plan(8);

update mdame.dimensions set daily_limit = 2 where id = 'tech-explained';
create temp table r as select * from mdame.start_run('k-topics', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
create temp table rd as select * from mdame.record_topics((select msg_id from m), (select run_id from r), 'tech-explained', 'step:t:0:topics',
  '[{"unit_key": "k1", "fingerprint": "f1", "title": "One"},
    {"unit_key": "k2", "fingerprint": "f2", "title": "Two"},
    {"unit_key": "k3", "fingerprint": "f3", "title": "Three"}]',
  '[{"title": "Casino night", "reasons": ["category:gambling"], "classifier": "rules/1"}]');

select is((select status from rd), 'ingested', 'the dimension is ingested');
select is((select units_created from rd), 2, 'the volume gate stops at the dimension''s daily limit');
select is((select topics_seen from rd), 4, 'every candidate and rejected topic is counted as seen');
select is((select count(*) from mdame.work_units where run_id = (select run_id from r) and stage = 'script'), 2::bigint, 'the new units start at script');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'script', 'run_id', (select run_id from r))), 2::bigint, 'with one script task each');
select is((select topic from mdame.work_units where unit_key = 'k1'), '{"title": "One"}'::jsonb, 'a unit keeps its topic without the key fields');
select is((select count(*) from mdame.safety_audit_logs where run_id = (select run_id from r) and subject = 'topic' and verdict = 'rejected'),
          1::bigint, 'the rejected topic is written to safety_audit_logs');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the ingest task is archived');

select * from finish();
rollback;
