begin;
\ir ../_fixtures.psql
select plan(6);

-- 12:00 UTC on 5 December is 02:00 on the 6th at Kiritimati (UTC+14) and 01:00 on the 5th at
-- Pago Pago (UTC-11): the two dimensions are on different local dates.
update mdame.dimensions set created_at = '2026-01-01T00:00:00Z';
update mdame.dimensions set publishing = publishing || '{"time_zone": "Pacific/Kiritimati", "publish_time": "18:00"}' where id = 'tech-explained';
update mdame.dimensions set publishing = publishing || '{"time_zone": "Pacific/Pago_Pago", "publish_time": "18:00"}' where id = 'sains-singkat';
select mdame.set_engine_clock(timestamptz '2026-12-05T12:00:00Z' - now());

select is(mdame.local_run_date((select publishing from mdame.dimensions where id = 'tech-explained'), mdame.engine_now()), date '2026-12-06',
          'the Kiritimati dimension''s run date is its local date');

-- A manual trigger without a date dates each dimension by its own day: one run per local date.
create temp table manual as select * from mdame.trigger_run('dev', 'manual', null, null);
select is((select array_agg(rd.dimension_id || ' ' || r.run_date order by r.run_date) from mdame.pipeline_runs r join mdame.run_dimensions rd on rd.run_id = r.id),
          array['sains-singkat 2026-12-05', 'tech-explained 2026-12-06'], 'two runs, each dimension on its local date');
select is((select count(*) from manual where created), 2::bigint, 'both are answered, the earliest date first');

-- The scheduled start later that local day finds the day started: one local day, one run, one daily limit.
select is((select count(*) from mdame.trigger_due_runs('2026-12-06T04:00:00Z')), 0::bigint,
          'the Kiritimati start (14:00 local, 00:00 UTC) finds its local day already started');

-- A caller's key over both dimensions cannot have one date for them.
select throws_ok($$ select * from mdame.start_run('probe-both', 'dev', 'manual', null, null) $$, 'MDS01', null,
                 'a keyed run over dimensions on different local dates is refused');
select is((select run_date from mdame.start_run('probe-one', 'dev', 'manual', null, 'sains-singkat') join mdame.pipeline_runs r on r.id = run_id),
          date '2026-12-05', 'a keyed run of one dimension is dated its local day');

select * from finish();
rollback;
