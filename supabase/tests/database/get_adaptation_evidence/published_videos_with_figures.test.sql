begin;
\ir ../_fixtures.psql
select plan(6);

create temp table r as select * from mdame.start_run('k-adapt-evidence', 'dev', 'manual', current_date, 'tech-explained');
insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, script) values
  ((select run_id from r), 'tech-explained', 'k-ev-1', 'fp-ev-1',
   '{"title": "A", "source": "hacker_news", "categories": ["science"], "adapt": {"target_s": 48, "length_arm": "short", "video_length_s": 44}}', 'published',
   '{"title": "t", "narration": "n", "hook_score": 0.81}'),
  ((select run_id from r), 'tech-explained', 'k-ev-2', 'fp-ev-2', '{"title": "B", "source": "reddit"}', 'published', '{"title": "t", "narration": "n", "hook_score": 0.75}');
insert into mdame.publications (unit_id, account_id, platform, status, published_at)
select u.id, (select id from mdame.dimension_accounts where dimension_id = 'tech-explained' limit 1), 'youtube', 'published', now()
  from mdame.work_units u where u.unit_key in ('k-ev-1', 'k-ev-2');
insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views, average_view_duration_s, average_view_percentage, likes, retention)
select p.id, w, now(), current_date - 3, current_date, 100, 80 + w, 20, 60 + w, 5, '[]'
  from mdame.publications p join mdame.work_units u on u.id = p.unit_id, (values (3), (7)) v(w)
 where u.unit_key = 'k-ev-1';

create temp table e as select * from mdame.get_adaptation_evidence('tech-explained', now() - interval '1 day');
select is((select count(*)::int from e), 1, 'only videos with figures count');
select is((select window_days from e), 7, 'the latest window (day 7)');
select is((select (retention, views, platform)::text from e), '(67,87,youtube)', 'retention is its average_view_percentage, views its engaged views');
select is((select (hook_score, hook_threshold, source)::text from e), '(0.81,0.72,hacker_news)', 'the hook score, the run''s threshold and the source');
select is((select unit_params->>'length_arm' from e), 'short', 'the unit''s own parameters');
select is((select count(*)::int from mdame.get_adaptation_evidence('tech-explained', now() + interval '1 day')), 0, 'older videos are left out');

select * from finish();
rollback;
