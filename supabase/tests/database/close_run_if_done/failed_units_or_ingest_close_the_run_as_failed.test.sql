begin;
\ir ../_fixtures.psql
select plan(4);

create temp table only_failed as select * from tests.unit_at_stage('failed');
create temp table failed_ingest as select * from tests.unit_at_stage('published');
insert into mdame.run_dimensions (run_id, dimension_id, status) values ((select run_id from failed_ingest), 'sains-singkat', 'failed');
create temp table only_rejected as select * from tests.unit_at_stage('rejected');

select is((mdame.close_run_if_done((select run_id from only_failed))).status, 'failed',
          'a run whose units all failed, none published, closes as failed');
create temp table r as select * from mdame.close_run_if_done((select run_id from failed_ingest));
select is((select status from r), 'failed', 'a dimension that failed to ingest fails the run despite a published unit');
select is((select error from r), '1 dimension(s) failed to ingest', 'with the number of dimensions that failed');
select is((mdame.close_run_if_done((select run_id from only_rejected))).status, 'completed',
          'a run whose units were all rejected completes: rejection is not a failure');

select * from finish();
rollback;
