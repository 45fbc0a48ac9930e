begin;
\ir ../_fixtures.psql
select plan(4);

select ok((mdame.database_usage(200)->>'database_bytes')::bigint > 0, 'the database has a size');
select ok(exists (select 1 from jsonb_array_elements(mdame.database_usage(200)->'tables') t where t->>'name' = 'pgmq.a_stage_tasks'), 'pgmq archives are among the tables');
select is(jsonb_array_length(mdame.database_usage(3)->'tables'), 3, 'the limit bounds the list');
select ok(mdame.database_usage(1)->'storage_prefixes' @> '["renders", "voice", "scenes", "reports/weekly/tech-explained"]', 'the engine''s Storage folders are named');

select * from finish();
rollback;
