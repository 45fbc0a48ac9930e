begin;
\ir ../_fixtures.psql
select plan(1);

select is((select code from tests.refusal($$select * from mdame.get_run_analytics('00000000-0000-4000-8000-000000000000')$$)), 'MDN01',
          'a run that does not exist is not found (404), as on every run route');

select * from finish();
rollback;
