begin;
\ir ../_fixtures.psql
select plan(7);

select is(mdame.get_effective_dimension_config('tech-explained')->'adapt'->'hook_threshold'->'value', '0.72'::jsonb,
          'before any move the hook threshold is the contract''s');
create temp table a as select * from mdame.record_adaptation('tech-explained', 'hook_threshold', '0.72', '0.74', 'strong hooks retain better', '{"arms": []}', null);
select is((select after from a), '0.74'::jsonb, 'the move is recorded with its after value');
select ok((select applied and reverted_at is null and reason = 'strong hooks retain better' and evidence = '{"arms": []}'::jsonb from a),
          'applied, with its reason and evidence');
select is(mdame.get_effective_dimension_config('tech-explained')->'adapt'->'hook_threshold'->'value', '0.74'::jsonb,
          'the effective configuration uses the new value');
create temp table r as select * from mdame.start_run('k-adapt-next-run', 'dev', 'manual', current_date, 'tech-explained');
select is(mdame.get_run_dimension_config((select run_id from r), 'tech-explained')->'adapt'->'hook_threshold'->'value', '0.74'::jsonb,
          'the next run starts with it');
select is((select adapt->'hook_threshold'->'value' from mdame.dimensions where id = 'tech-explained'), '0.72'::jsonb,
          'the contract itself is unchanged');
select throws_ok($$select mdame.record_adaptation('tech-explained', 'hook_threshold', '0.72', '0.70', 'stale', '{}', null)$$,
                 'MDS01', null, 'a decision made on a value no longer in force is refused');

select * from finish();
rollback;
