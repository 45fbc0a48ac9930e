begin;
select plan(6);

select is(has_schema_privilege('mdame_engine', 'pgmq', 'usage') or has_schema_privilege('service_role', 'pgmq', 'usage'), false,
          'neither the engine role nor service_role may use schema pgmq');
select throws_ok($$ set local role mdame_engine; select pgmq.send('stage_tasks', '{}'::jsonb) $$, '42501', null,
                 'the engine role cannot send to a queue directly');
select throws_ok($$ set local role mdame_engine; select * from pgmq.read('render', 30, 1) $$, '42501', null,
                 'nor read one');
select throws_ok($$ set local role mdame_engine; delete from pgmq.q_stage_tasks $$, '42501', null,
                 'nor touch a queue''s table');
select throws_ok($$ set local role service_role; select pgmq.archive('stage_tasks', 1::bigint) $$, '42501', null,
                 'service_role cannot archive a message directly');
select throws_ok($$ set local role service_role; select * from pgmq.metrics_all() $$, '42501', null,
                 'nor read the queues'' metrics');

select * from finish();
rollback;
