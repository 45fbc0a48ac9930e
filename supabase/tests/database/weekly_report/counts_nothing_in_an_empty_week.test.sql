begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(12);

-- Work in the week before and after: an empty week counts none of it.
select tests.unit_through('tech-explained', array['script', 'published'], array['2026-11-15 10:00Z', '2026-11-15 11:00Z']::timestamptz[]);
select tests.unit_through('tech-explained', array['script', 'failed'], array['2026-11-30 10:00Z', '2026-11-30 11:00Z']::timestamptz[], 'render: boom');
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-25') as j;

select is((select j->>'week_start' from r), '2026-11-23', 'any date of the week selects its Monday');
select is((select j->>'week_end' from r), '2026-11-29', 'and the week ends on Sunday');
select is((select j->'outcomes' from r), '{"failed": 0, "rejected": 0, "published": 0, "failed_by_stage": [], "rejected_by_reason": []}'::jsonb,
  'no outcome in an empty week');
select is((select jsonb_array_length(j->'daily') from r), 7, 'seven days all the same');
select is((select count(*)::int from r, jsonb_array_elements(j->'daily') d where d = jsonb_build_object('date', d->>'date', 'published', 0, 'rejected', 0, 'failed', 0)), 7,
  'each of them empty');
select is((select j->'stage_latency' from r), '[]'::jsonb, 'no stage latency');
select is((select j->'cache'->'llm' from r), '{"hits": 0, "lookups": 0, "hit_rate": null}'::jsonb, 'no cache lookups: the rate is null, not zero');
select is((select j->'quota' from r), '{"tiktok": [], "youtube": []}'::jsonb, 'no quota used');
select is((select j->'videos' from r),
  '{"count": 0, "best_engaged": null, "worst_engaged": null, "best_retention": null, "worst_retention": null, "by_platform": [],
    "each": [], "retention_curves": {"best": null, "worst": null}}'::jsonb, 'no videos');
select is((select j->'topics_rejected' from r), '[]'::jsonb, 'no topics dropped');
select is((select j->>'time_zone' from r), 'UTC', 'the dimension''s zone is named');
select throws_ok($$select mdame.weekly_report('no-such-dimension', '2026-11-25')$$, 'MDN01', null, 'an unknown dimension is refused');

select * from finish();
rollback;
