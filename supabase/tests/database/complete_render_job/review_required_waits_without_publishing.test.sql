begin;
\ir ../_fixtures.psql
select plan(6);

create temp table u as select * from tests.unit_awaiting_review('reject', '2h');

select is((select stage from u), 'awaiting_review', 'a unit of a run that requires review waits for it');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'publish', 'unit_id', (select id from u))), 0::bigint, 'nothing is queued for publishing');
select is((select stage_deadline from u), null, 'the wait has no stage deadline: the review''s expiry bounds it');
select is((select expires_at - requested_at from mdame.unit_reviews where unit_id = (select id from u)), interval '2 hours', 'the review expires after the configured time');
select is((select count(*) from mdame.alerts where kind = 'review_waiting' and details->>'unit_id' = (select id::text from u)), 1::bigint, 'the operator is alerted');
select is((select status from mdame.pipeline_runs where id = (select run_id from u)), 'running', 'the run stays open');

select * from finish();
rollback;
