begin;
\ir ../_fixtures.psql
select plan(3);

select is((mdame.run_engine_job('mdame-housekeeping')->>'function'), 'mdame.housekeeping(false)', 'the daily pass is on the list');
select ok((select bool_and(k ? 'kind' and k ? 'deleted') from jsonb_array_elements(mdame.run_engine_job('mdame-housekeeping')->'result') k),
          'its result is the pass''s report, one entry per kind');
select is(jsonb_typeof(mdame.run_engine_job('mdame-storage-deletions')->'result'), 'boolean', 'the storage deletions'' wake answers whether it woke the pipeline');

select * from finish();
rollback;
