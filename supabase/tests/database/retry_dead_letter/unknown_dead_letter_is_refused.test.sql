begin;
\ir ../_fixtures.psql
select plan(1);

select throws_ok($$ select mdame.retry_dead_letter(-1) $$, 'MDN01', null, 'a dead letter that does not exist is refused');

select * from finish();
rollback;
