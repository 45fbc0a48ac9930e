begin;
\ir ../_fixtures.psql
select plan(2);

select mdame.store_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk');
select mdame.reseal_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk', 'v2.0a1b2c3d.aXY=.bmV3');
select is((mdame.reseal_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk', 'v2.0a1b2c3d.aXY=.bmV3')).credentials_enc,
          'v2.0a1b2c3d.aXY=.bmV3', 'a repeated call (a rotation killed before it saw the answer) finds its value stored');
select is((select count(*) from mdame.dimension_accounts where credentials_enc = 'v2.0a1b2c3d.aXY=.bmV3'), 1::bigint, 'on the one account');

select * from finish();
rollback;
