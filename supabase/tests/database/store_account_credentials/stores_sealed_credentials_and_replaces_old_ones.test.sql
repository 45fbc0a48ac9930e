begin;
\ir ../_fixtures.psql
select plan(3);

create temp table first as select * from mdame.store_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.Zmlyc3Q=');
select is((select credentials_enc from first), 'v1.aXY=.Zmlyc3Q=', 'the sealed credentials are stored');
select ok((select connected_at is not null from first), 'with the time they were connected');
select is((mdame.store_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.c2Vjb25k')).credentials_enc, 'v1.aXY=.c2Vjb25k',
          'a new connect replaces them');

select * from finish();
rollback;
