begin;
\ir ../_fixtures.psql
select plan(1);

delete from mdame.settings where key = 'env';
select throws_ok($$ select mdame.assert_environment('dev') $$, 'MDE01', null, 'a database that records no environment accepts no ENV');

select * from finish();
rollback;
