begin;
\ir ../_fixtures.psql
select plan(7);

-- A stage task claimed by runner-x whose lease ran out, and a live scene claim plus an expired one.
create temp table seeded as select * from tests.unit_at_stage('script');
select tests.send_task('script', (select id from seeded));
select count(*) from mdame.claim_stage_tasks('runner-x', 10, 30);
update pgmq.q_stage_tasks set vt = clock_timestamp() - interval '1 minute';
-- The claim's lease and the message's visibility end together, as claim_stage_tasks sets them.
update mdame.work_units set lease_expires_at = (select vt from pgmq.q_stage_tasks) where id = (select id from seeded);
insert into mdame.scene_generation_claims (scene_hash, backend, holder, lease_until) values
  (repeat('a', 64), 'pexels', 'gpu-1', clock_timestamp() + interval '5 minutes'),
  (repeat('b', 64), 'pexels', 'gpu-2', clock_timestamp() - interval '5 minutes');

create temp table q as select mdame.ops_queues() as o;

select is((select (e->>'depth')::int from q, jsonb_array_elements(o->'queues') e where e->>'queue_name' = 'stage_tasks'), 1,
          'the stage queue''s depth comes from pgmq.metrics_all');
select is((select count(*)::int from q, jsonb_array_elements(o->'queues') e), (select count(*)::int from pgmq.meta),
          'every pgmq queue is listed');
select is((select o->'leases'->'stage_tasks' from q), '{"held": 0, "stale": 1}'::jsonb, 'a read stage task past its lease is stale');
select is((select o->'leases'->'scene_claims' from q), '{"held": 1, "stale": 1}'::jsonb, 'scene claims are held until their lease_until');
select is((select s->>'holder' from q, jsonb_array_elements(o->'stale_leases') s where s->>'kind' = 'stage_task'),
          (select lease_holder from mdame.work_units where id = (select id from seeded)), 'the stale stage task names its holder');
select is((select (w->>'live')::boolean from q, jsonb_array_elements(o->'lease_holders') w where w->>'worker_id' = 'runner-x'), false,
          'the stage runner''s last lease has run out');
select is((select (w->>'leases_held')::int from q, jsonb_array_elements(o->'lease_holders') w where w->>'worker_id' = 'gpu-1'), 1,
          'a scene generator holding a claim is live');

select * from finish();
rollback;
