begin;
\ir ../_fixtures.psql
select plan(1);

select is(mdame.get_run_status(gen_random_uuid()), null, 'a run that does not exist has no status');

select * from finish();
rollback;
