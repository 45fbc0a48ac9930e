begin;
\ir ../_fixtures.psql
select plan(1);

select throws_ok(format('select mdame.abort_run(%L, ''no such run'')', gen_random_uuid()), 'MDN01', null, 'aborting a run that does not exist is refused');

select * from finish();
rollback;
