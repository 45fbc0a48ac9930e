begin;
\ir ../_fixtures.psql
select plan(2);

-- The fixture run records no configuration, as runs started before configurations were recorded.
create temp table u as select * from tests.unit_at_stage('script');

select is(mdame.get_run_dimension_config((select run_id from u), 'tech-explained'), null, 'a run that recorded no configuration has none');
select is(mdame.get_run_dimension_config(gen_random_uuid(), 'tech-explained'), null, 'a run that does not exist has none');

select * from finish();
rollback;
