begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('safety');
create temp table m as select tests.send_task('safety', (select id from u)) as msg_id;
create temp table r as select * from mdame.record_safety_verdict((select msg_id from m), (select id from u), 'step:t:2:detail', false,
  '["Gemini stopped the answer: SAFETY"]', 'gemini-safety/1', null,
  '{"category": "harassment", "model": "gemini-2.5-flash", "confidence": 1}');

select is((select stage from r), 'rejected', 'a refused script ends its unit');
select is((select (verdict, category, classifier, model, confidence, reasons) from mdame.safety_audit_logs where unit_id = (select id from u)),
          ('rejected'::text, 'harassment'::text, 'gemini-safety/1'::text, 'gemini-2.5-flash'::text, 1::real, '["Gemini stopped the answer: SAFETY"]'::jsonb),
          'the audit row names the category, the classifier, the model and its confidence');
select ok(tests.archived('stage_tasks', (select msg_id from m)), 'the safety task is archived');

select * from finish();
rollback;
