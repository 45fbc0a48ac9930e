begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('published');
insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage)
values ((select run_id from u), 'tech-explained', 'failed-key', 'failed-fp', '{}', 'failed');

create temp table r as select * from mdame.close_run_if_done((select run_id from u));

select is((select status from r), 'completed', 'a run with a published unit completes even when another unit failed');
select isnt((select finished_at from r), null, 'it records when it finished');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'completed', 'the stored run is closed');
select is((select count(*) from mdame.events where run_id = (select run_id from u) and kind = 'run_completed'), 1::bigint, 'the close is logged');

select * from finish();
rollback;
