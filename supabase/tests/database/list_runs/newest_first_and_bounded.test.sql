begin;
select plan(4);

insert into mdame.pipeline_runs (idempotency_key, env, run_date, trigger_kind, created_at)
values ('test-older', 'dev', current_date, 'manual', now() + interval '1 hour'),
       ('test-newest', 'dev', current_date, 'cron', now() + interval '2 hours');

select is((select array_agg(idempotency_key order by ordinality) from mdame.list_runs(2) with ordinality),
          array['test-newest', 'test-older'], 'the latest runs come newest first');
select is((select count(*) from mdame.list_runs(1)), 1::bigint, 'as many as asked');
select is((select array_agg(created_at order by ordinality) from mdame.list_runs(50) with ordinality),
          (select array_agg(created_at order by created_at desc) from (select created_at from mdame.pipeline_runs order by created_at desc limit 50) r),
          'a longer list keeps the order');
select is((select row(env, trigger_kind, status)::text from mdame.list_runs(1)), row('dev', 'cron', 'running')::text,
          'each run with its environment, trigger and status');

select * from finish();
rollback;
