begin;
\ir ../_fixtures.psql
select plan(3);

select is((mdame.set_dimension_active('sains-singkat', false)).active, false, 'the dimension is paused');
create temp table r as select * from mdame.start_run('pgtap-paused-run', 'dev', 'manual', current_date, null);
select is((select array_agg(dimension_id order by dimension_id) from mdame.run_dimensions where run_id = (select run_id from r)),
          array['tech-explained'], 'a new run picks only the active dimensions');
select throws_ok($$select * from mdame.start_run('pgtap-paused-run-2', 'dev', 'manual', current_date, 'sains-singkat')$$, 'MDN01', null,
                 'a run of the paused dimension alone is refused');

select * from finish();
rollback;
