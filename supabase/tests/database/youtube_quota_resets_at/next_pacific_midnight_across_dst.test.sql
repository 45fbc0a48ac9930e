begin;
\ir ../_fixtures.psql
select plan(4);

select is(mdame.youtube_quota_resets_at(date '2026-01-14'), timestamptz '2026-01-15 08:00:00+00', 'a winter day resets at 08:00 UTC the next day');
select is(mdame.youtube_quota_resets_at(date '2026-07-14'), timestamptz '2026-07-15 07:00:00+00', 'a summer day resets at 07:00 UTC the next day');
select is(mdame.youtube_quota_resets_at(date '2026-03-07'), timestamptz '2026-03-08 08:00:00+00',
  'the day before spring-forward ends at midnight PST (the clocks move at 02:00)');
select is(mdame.youtube_quota_resets_at(date '2026-03-08') - mdame.youtube_quota_resets_at(date '2026-03-07'), interval '23 hours',
  'the spring-forward day lasts 23 hours');

select * from finish();
rollback;
