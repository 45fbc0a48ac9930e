begin;
\ir ../_fixtures.psql
select plan(3);

select is((mdame.store_account_credentials(tests.account_of('tech-explained'), 'v2.0a1b2c3d.aXY=.Zmlyc3Q=')).credentials_enc, 'v2.0a1b2c3d.aXY=.Zmlyc3Q=',
          'a value sealed with a key of the ring, naming its kid, is stored');
select throws_ok(format('select mdame.store_account_credentials(%L, %L)', tests.account_of('tech-explained'), 'v2.NOTAKID.aXY=.Zmlyc3Q='),
                 '22023', null, 'a kid that is not 8 hex digits is refused');
select throws_ok(format('select mdame.store_account_credentials(%L, %L)', tests.account_of('tech-explained'), 'v2.aXY=.Zmlyc3Q='),
                 '22023', null, 'a v2 value without its kid is refused');

select * from finish();
rollback;
