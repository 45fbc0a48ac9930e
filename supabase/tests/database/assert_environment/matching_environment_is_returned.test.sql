begin;
\ir ../_fixtures.psql
select plan(2);

select is(mdame.assert_environment('dev'), 'dev', 'ENV=dev against the dev database passes and names it');
update mdame.settings set value = 'prod' where key = 'env';
select is(mdame.assert_environment('prod'), 'prod', 'the check follows what the database records');

select * from finish();
rollback;
