begin;
\ir ../_fixtures.psql
select plan(5);

delete from mdame.weekly_reports;
select is((mdame.run_engine_job('mdame-weekly-reports')->>'function'), 'mdame.queue_weekly_reports()', 'the job''s function is named');
select is((select count(*)::int from mdame.weekly_reports), (select count(*)::int from mdame.dimensions where active), 'and its work is done');
select is((mdame.run_engine_job('mdame-publish-drain')->'result'), '0'::jsonb, 'its result is returned as JSON');

-- A job scheduled under an engine-looking name runs nothing: only the fixed list counts.
select cron.schedule('mdame-intruder', '0 0 1 1 *', 'delete from mdame.dimensions');
select is((select code from tests.refusal($$select mdame.run_engine_job('mdame-intruder')$$)), 'MDN01', 'a name outside the list is not found');
select is((select code from tests.refusal($$select mdame.run_engine_job(null)$$)), 'MDN01', 'nor is a null name');

select * from finish();
rollback;
