begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.store_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk');
update mdame.dimension_accounts set connected_at = '2026-01-01T00:00:00Z' where id = tests.account_of('tech-explained');
create temp table resealed as
  select * from mdame.reseal_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk', 'v2.0a1b2c3d.aXY=.bmV3');
select is((select credentials_enc from resealed), 'v2.0a1b2c3d.aXY=.bmV3', 'the value read is replaced by the re-sealed one');
select is((select credentials_enc from mdame.dimension_accounts where id = tests.account_of('tech-explained')), 'v2.0a1b2c3d.aXY=.bmV3',
          'and stored');
select is((select connected_at from resealed), '2026-01-01T00:00:00Z'::timestamptz, 'a re-seal is not a reconnect: connected_at stays');
select is((mdame.reseal_account_credentials(tests.account_of('tech-explained'), 'v2.0a1b2c3d.aXY=.bmV3', 'v2.99999999.aXY=.bmV3')).credentials_enc,
          'v2.99999999.aXY=.bmV3', 'a v2 value sealed with a previous key is re-sealed too');

select * from finish();
rollback;
