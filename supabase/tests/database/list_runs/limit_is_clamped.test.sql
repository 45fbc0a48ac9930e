begin;
select plan(4);

insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind)
select 'test-bulk-' || i, 'dev', current_date, 'cron' from generate_series(1, 501) i;

select is((select count(*) from mdame.list_runs(100000)), 500::bigint, 'no more than 500 runs, however many are asked for');
select is((select count(*) from mdame.list_runs(0)), 0::bigint, 'none for a limit of zero');
select is((select count(*) from mdame.list_runs(-1)), 0::bigint, 'none for a negative limit (not an error)');
select is((select count(*) from mdame.list_runs(null)), 0::bigint, 'none for no limit (not every run)');

select * from finish();
rollback;
