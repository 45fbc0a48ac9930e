begin;
\ir ../_fixtures.psql
select plan(6);

-- One slot left today: the best allowed topic becomes a unit, the next is still audited.
update mdame.dimensions set daily_limit = 1 where id = 'tech-explained';
create temp table r as select * from mdame.start_run('k-topic-audit', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
create temp table rd as select * from mdame.record_topics((select msg_id from m), (select run_id from r), 'tech-explained', 'step:t:0:audit',
  '[{"unit_key": "a1", "fingerprint": "fa1", "title": "Honeybees",
     "safety": {"allowed": true, "category": "none", "reasons": ["no sensitive category found"], "classifier": "gemini-safety/1", "model": "gemini-2.5-flash", "confidence": 0.95}},
    {"unit_key": "a2", "fingerprint": "fa2", "title": "Auroras",
     "safety": {"allowed": true, "category": "none", "reasons": ["fine"], "classifier": "gemini-safety/1", "model": "gemini-2.5-flash", "confidence": 0.9}}]',
  '[{"title": "Knife fights", "reasons": ["mentions violence"], "classifier": "gemini-safety/1", "category": "violence", "model": "gemini-2.5-flash", "confidence": 0.92}]');

select is((select units_created from rd), 1, 'the volume gate still makes one unit');
select is((select (verdict, category, classifier, model, confidence, unit_id is not null) from mdame.safety_audit_logs
            where run_id = (select run_id from r) and subject_text = 'Honeybees'),
          ('allowed'::text, 'none'::text, 'gemini-safety/1'::text, 'gemini-2.5-flash'::text, 0.95::real, true),
          'the allowed topic that became a unit is audited with its verdict and its unit');
select is((select (verdict, unit_id) from mdame.safety_audit_logs where run_id = (select run_id from r) and subject_text = 'Auroras'),
          ('allowed'::text, null::uuid), 'an allowed topic past the volume gate is audited without a unit');
select is((select (verdict, category, reasons) from mdame.safety_audit_logs where run_id = (select run_id from r) and subject_text = 'Knife fights'),
          ('rejected'::text, 'violence'::text, '["mentions violence"]'::jsonb), 'the rejected topic keeps its category and reason');
select is((select topic from mdame.work_units where unit_key = 'a1'), '{"title": "Honeybees"}'::jsonb, 'the verdict is not copied into the unit''s topic');
select is((select count(*) from mdame.safety_audit_logs where run_id = (select run_id from r)), 3::bigint, 'one row per verdict');

select * from finish();
rollback;
