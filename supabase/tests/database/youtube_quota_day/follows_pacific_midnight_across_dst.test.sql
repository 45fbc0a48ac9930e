begin;
\ir ../_fixtures.psql
select plan(6);

-- Winter (PST, UTC-8): the day turns at 08:00 UTC.
select is(mdame.youtube_quota_day('2026-01-15 07:59:59+00'), date '2026-01-14', 'in winter 07:59 UTC is still the previous Pacific day');
select is(mdame.youtube_quota_day('2026-01-15 08:00:00+00'), date '2026-01-15', 'in winter the Pacific day starts at 08:00 UTC');
-- Summer (PDT, UTC-7): the day turns at 07:00 UTC.
select is(mdame.youtube_quota_day('2026-07-15 06:59:59+00'), date '2026-07-14', 'in summer 06:59 UTC is still the previous Pacific day');
select is(mdame.youtube_quota_day('2026-07-15 07:00:00+00'), date '2026-07-15', 'in summer the Pacific day starts at 07:00 UTC');
-- The spring-forward day (2026-03-08) and the fall-back day (2026-11-01) turn at the new offset.
select is(mdame.youtube_quota_day('2026-03-09 06:30:00+00'), date '2026-03-08', 'the night after spring-forward belongs to March 8 until 07:00 UTC');
select is(mdame.youtube_quota_day('2026-11-02 07:30:00+00'), date '2026-11-01', 'the night after fall-back belongs to November 1 until 08:00 UTC');

select * from finish();
rollback;
