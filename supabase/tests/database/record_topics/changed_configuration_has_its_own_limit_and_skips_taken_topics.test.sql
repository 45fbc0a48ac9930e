begin;
\ir ../_fixtures.psql
select plan(4);

-- The day's first run takes topic f1 under the dimension's first configuration.
create temp table r1 as select * from mdame.start_run('k-config-1', 'dev', 'manual', current_date, 'tech-explained');
select mdame.record_topics((select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r1)),
  (select run_id from r1), 'tech-explained', 'step:t:1', '[{"unit_key": "k1", "fingerprint": "f1", "title": "One"}]', '[]');
update mdame.work_units set stage = 'published' where run_id = (select run_id from r1);
select mdame.close_run_if_done((select run_id from r1));

-- The configuration changes; the new run sees the same trends.
update mdame.dimensions set tts_rate = '-5%' where id = 'tech-explained';
create temp table r2 as select * from mdame.trigger_run('dev', 'manual', current_date, 'tech-explained');
create temp table rd as select * from mdame.record_topics((select msg_id from pgmq.q_stage_tasks where message->>'run_id' = (select run_id::text from r2)),
  (select run_id from r2), 'tech-explained', 'step:t:2',
  '[{"unit_key": "k1b", "fingerprint": "f1", "title": "One"}, {"unit_key": "k2", "fingerprint": "f2", "title": "Two"}]', '[]');

select is((select units_created from rd), 1, 'the new configuration gets its own daily limit');
select is((select topic_fingerprint from mdame.work_units where run_id = (select run_id from r2)), 'f2', 'and skips the topic the first run took');
select is((select count(*) from mdame.work_units where topic_fingerprint = 'f1'), 1::bigint, 'no second unit for a taken topic');

-- A third run of the first configuration's day allowance would be gated: the same configuration again is the same run.
update mdame.dimensions set tts_rate = '+0%' where id = 'tech-explained';
select is((select created from mdame.trigger_run('dev', 'manual', current_date, 'tech-explained')), false,
          'going back to the first configuration finds the run that started it');

select * from finish();
rollback;
