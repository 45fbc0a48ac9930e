begin;
\ir ../_fixtures.psql
select plan(6);

create temp table u as select * from tests.unit_awaiting_review();
create temp table r as select * from mdame.reject_review((select id from u), '  wrong facts  ');
create temp table r2 as select * from mdame.reject_review((select id from u), 'another reason');

select is((select decision || '/' || reason from r), 'rejected/wrong facts', 'the rejection is recorded with its reason');
select is((select stage from mdame.work_units where id = (select id from u)), 'rejected', 'the unit ends rejected');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'publish', 'unit_id', (select id from u))), 0::bigint, 'nothing is queued for publishing');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'completed', 'the run closes once its last unit is decided');
select is((select reason from r2), 'wrong facts', 'a repeated rejection keeps the first reason');
select is((tests.refusal(format('select mdame.reject_review(%L, %L)', (select id from tests.unit_awaiting_review()), ''))).code, '22023',
          'a rejection without a reason is refused');

select * from finish();
rollback;
