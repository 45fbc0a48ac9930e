begin;
\ir ../_fixtures.psql
select plan(1);

select throws_ok(format('select mdame.close_run_if_done(%L)', gen_random_uuid()), 'MDN01', null, 'closing a run that does not exist is refused');

select * from finish();
rollback;
