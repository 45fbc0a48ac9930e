begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.store_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk');
-- A connect stores new credentials after the rotation read the old ones.
select mdame.store_account_credentials(tests.account_of('tech-explained'), 'v2.0a1b2c3d.aXY=.Y29ubmVjdA==');
create temp table answer as
  select * from mdame.reseal_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk', 'v2.0a1b2c3d.aXY=.cmVzZWFs');
select is((select credentials_enc from answer), 'v2.0a1b2c3d.aXY=.Y29ubmVjdA==', 'the row comes back with the connect''s value');
select is((select credentials_enc from mdame.dimension_accounts where id = tests.account_of('tech-explained')), 'v2.0a1b2c3d.aXY=.Y29ubmVjdA==',
          'which is not overwritten');

-- An account removed but kept as the record of its videos has no credentials left to re-seal.
update mdame.dimension_accounts set credentials_enc = null where id = tests.account_of('tech-explained');
select is((mdame.reseal_account_credentials(tests.account_of('tech-explained'), 'v2.0a1b2c3d.aXY=.Y29ubmVjdA==', 'v2.0a1b2c3d.aXY=.cmVzZWFs')).credentials_enc,
          null, 'credentials erased meanwhile stay erased');

select * from finish();
rollback;
