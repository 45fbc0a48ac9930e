begin;
\ir ../_fixtures.psql
select plan(1);

select throws_ok('select * from mdame.read_worker_jobs(''stage_tasks'', 30, 1)', 'MDS01', null,
                 'stage tasks are claimed with claim_stage_tasks, not read as worker jobs');

select * from finish();
rollback;
