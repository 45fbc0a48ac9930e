begin;
\ir ../_fixtures.psql
select plan(7);

-- Both publish at 18:00 local, so production starts 4 hours before: 14:00 WIB (07:00 UTC) in
-- Jakarta, 14:00 EST (19:00 UTC) in New York.
update mdame.dimensions set created_at = '2026-01-01T00:00:00Z';
update mdame.dimensions set publishing = publishing || '{"time_zone": "Asia/Jakarta", "publish_time": "18:00"}' where id = 'tech-explained';
update mdame.dimensions set publishing = publishing || '{"time_zone": "America/New_York", "publish_time": "18:00"}' where id = 'sains-singkat';

select is((select count(*) from mdame.trigger_due_runs('2026-12-10T06:59:00Z')), 0::bigint, 'nothing is due at 13:59 in Jakarta');
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T07:00:00Z')), 1::bigint, 'at 14:00 in Jakarta one run starts');
select is((select array_agg(rd.dimension_id || ' ' || r.run_date) from mdame.pipeline_runs r join mdame.run_dimensions rd on rd.run_id = r.id),
          array['tech-explained 2026-12-10'], 'for the Jakarta dimension alone, dated its local day');
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T18:59:00Z')), 0::bigint, 'nothing more until 14:00 in New York');
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T19:00:00Z')), 1::bigint, 'at 14:00 in New York a second run starts');
select is((select array_agg(rd.dimension_id || ' ' || r.run_date order by r.created_at) from mdame.pipeline_runs r join mdame.run_dimensions rd on rd.run_id = r.id),
          array['tech-explained 2026-12-10', 'sains-singkat 2026-12-10'], 'for the New York dimension alone');
-- 17:30 UTC is 00:30 on 11 December in Jakarta: a new local day whose start has not come.
select is((select count(*) from mdame.trigger_due_runs('2026-12-10T17:30:00Z')), 0::bigint,
          'just after local midnight the Jakarta dimension waits for its next start');

select * from finish();
rollback;
