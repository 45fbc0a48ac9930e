begin;
select plan(4);

-- 23:30 UTC on 4 December.
select is(mdame.local_run_date('{"time_zone": "Asia/Jakarta", "publish_time": "18:00"}', '2026-12-04T23:30:00Z'), date '2026-12-05',
          'Jakarta (UTC+7) is already on the 5th');
select is(mdame.local_run_date('{"time_zone": "America/New_York", "run_time": "09:00"}', '2026-12-04T23:30:00Z'), date '2026-12-04',
          'New York (UTC-5) is still on the 4th');
select is(mdame.local_run_date('{"time_zone": "Asia/Jakarta"}', '2026-12-04T23:30:00Z'), date '2026-12-04',
          'without a run or publish time the day is UTC''s, as the 06:00 UTC start is');
select is(mdame.local_run_date('{"time_zone": "Pacific/Kiritimati", "publish_time": "18:00"}', '2026-12-04T10:00:00Z'), date '2026-12-05',
          'Kiritimati (UTC+14) is on the next day by 10:00 UTC');

select * from finish();
rollback;
