begin;
\ir ../_fixtures.psql
select plan(2);

select throws_ok($$ select mdame.assert_environment('prod') $$, 'MDE01', null, 'ENV=prod against the dev database is refused');
select throws_ok($$ select mdame.assert_environment(null) $$, 'MDE01', null, 'an unset ENV is refused');

select * from finish();
rollback;
