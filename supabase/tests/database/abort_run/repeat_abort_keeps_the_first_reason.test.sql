begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('script');
select mdame.abort_run((select run_id from u), 'first reason');
-- Moved into the past so a second abort that rewrote it would show.
update mdame.pipeline_runs set finished_at = '2026-01-01 00:00:00+00' where id = (select run_id from u);
create temp table r as select mdame.abort_run((select run_id from u), 'second reason') as result;

select is((select result->'run'->>'error' from r), 'aborted: first reason', 'the run keeps the first abort''s reason');
select is((select finished_at from mdame.pipeline_runs where id = (select run_id from u)), '2026-01-01 00:00:00+00'::timestamptz, 'and its finish time');
select is((select error from mdame.work_units where id = (select id from u)), 'aborted by operator: first reason', 'the unit keeps the first reason too');
select is((select count(*) from mdame.events where run_id = (select run_id from u) and kind = 'run_rolled_back'), 1::bigint, 'the abort is logged once');

select * from finish();
rollback;
