begin;
\ir ../_fixtures.psql
select plan(7);

create temp table u as select * from tests.unit_at_stage('media');
select tests.add_scene((select id from u), 0, 'ready');
select tests.add_scene((select id from u), 1, 'queued');
create temp table s as select mdame.get_run_status((select run_id from u)) as status;

select is((select status->'run'->>'status' from s), 'running', 'the run''s status is reported');
select ok((select not (status->'run' ? 'idempotency_key') from s), 'the idempotency key is not shown');
select is((select status->'dimensions'->0->>'dimension_id' from s), 'tech-explained', 'each dimension of the run is listed');
select is((select status->'units'->0->>'stage' from s), 'media', 'each unit is listed with its stage');
select is((select status->'units'->0->>'title' from s), 'Test title', 'and the title of its script');
select is((select (status->'units'->0->>'scenes_ready')::int from s), 1, 'with the scenes ready');
select is((select (status->'units'->0->>'scenes_total')::int from s), 2, 'out of all its scenes');

select * from finish();
rollback;
