begin;
\ir ../_fixtures.psql
select plan(7);

update mdame.dimensions set active = false where id <> 'tech-explained' and id <> 'sains-singkat';
update mdame.dimensions set publishing = publishing || '{"time_zone": "Asia/Jakarta"}' where id = 'sains-singkat';
insert into mdame.dimensions (id, display_name, language, tts_voice, trend_geo, style, active)
values ('paused-one', 'Paused', 'en', 'en-US-AriaNeural', 'US', '{}', false);

-- Sunday 2026-11-22 21:00 UTC: still Sunday in UTC, already Monday 04:00 in Jakarta; both report the week of 2026-11-16.
select is(mdame.queue_weekly_reports('2026-11-22 21:00Z'), 2, 'one report per active dimension');
select is((select array_agg(dimension_id || ':' || week_start || ':' || status order by dimension_id) from mdame.weekly_reports),
  array['sains-singkat:2026-11-16:pending', 'tech-explained:2026-11-16:pending'], 'for the week that is ending, pending');
select is(mdame.queue_weekly_reports('2026-11-22 21:00Z'), 0, 'a second queue for the same week adds nothing');
select is(mdame.queue_weekly_reports('2026-11-22 23:30Z'), 0, 'nor does a later one the same evening');
select is((select count(*)::int from mdame.weekly_reports), 2, 'still one row per dimension and week');
select is(mdame.queue_weekly_reports('2026-11-29 21:00Z'), 2, 'the next Sunday queues the next week');
select is((select count(*)::int from mdame.weekly_reports where week_start = '2026-11-23'), 2, 'for both dimensions');

select * from finish();
rollback;
