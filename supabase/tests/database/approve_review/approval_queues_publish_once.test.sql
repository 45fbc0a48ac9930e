begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_awaiting_review();
create temp table a as select * from mdame.approve_review((select id from u));
create temp table b as select * from mdame.approve_review((select id from u), 'A second title');

select is((select decision || '/' || decided_by from a), 'approved/operator', 'the review is approved by the operator');
select is((select stage from mdame.work_units where id = (select id from u)), 'publish', 'the unit moves to publish');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'publish', 'unit_id', (select id from u))), 1::bigint, 'one publish task is queued');
select is((select decided_at from b), (select decided_at from a), 'a repeated approval returns the review unchanged');
select is((select script->>'title' from mdame.work_units where id = (select id from u)), 'Test title', 'a repeated approval edits nothing');

select * from finish();
rollback;
