begin;
\ir ../_fixtures.psql
select plan(5);

create temp table r as select * from mdame.start_run('k-dropped', 'dev', 'manual', current_date, 'tech-explained');
create temp table m as select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r) and message->>'stage' = 'ingest';
create temp table rd as select * from mdame.record_topics((select msg_id from m), (select run_id from r), 'tech-explained', 'step:t:0:dropped',
  '[{"unit_key": "kd1", "fingerprint": "fd1", "title": "James Webb telescope", "score": 0.8}]',
  '[{"title": "Casino night", "reasons": ["category:gambling"], "classifier": "rules/1"},
    {"title": "Sourdough starter", "source": "google_trends", "url": null, "reason": "off_subject", "score": 0.31,
     "components": {"recency": 0.9, "traffic": 0.7, "relevance": 0, "novelty": 1}, "detail": {}},
    {"title": "Telescope mirror", "source": "feed", "url": "https://optics.invalid/mirror", "reason": "below_min_score", "score": 0.42,
     "components": {"recency": 0.1, "traffic": 0.5, "relevance": 1, "novelty": 1}, "detail": {"min_score": 0.5}}]');

select is((select topics_seen from rd), 4, 'kept, audited and dropped topics are all counted as seen');
select is((select count(*) from mdame.rejected_topics where run_id = (select run_id from r)), 2::bigint, 'each dropped topic is recorded once');
select is((select (reason, score, components->>'relevance', detail->>'min_score') from mdame.rejected_topics where title = 'Telescope mirror'),
          ('below_min_score'::text, 0.42::double precision, '1'::text, '0.5'::text), 'with why, its score and its components');
select is((select count(*) from mdame.safety_audit_logs where run_id = (select run_id from r) and subject = 'topic'), 1::bigint,
          'a safety rejection still goes to safety_audit_logs only');

select mdame.record_topics((select msg_id from m), (select run_id from r), 'tech-explained', 'step:t:0:dropped', '[]', '[{"title": "Again", "reason": "off_subject", "score": 0.1}]');
select is((select count(*) from mdame.rejected_topics where run_id = (select run_id from r)), 2::bigint, 'a repeated call records nothing more');

select * from finish();
rollback;
