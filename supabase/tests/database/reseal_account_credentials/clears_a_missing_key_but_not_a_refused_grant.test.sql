begin;
\ir ../_fixtures.psql
select plan(6);

select mdame.store_account_credentials(tests.account_of('tech-explained'), 'v2.0a1b2c3d.aXY=.b2xk');
select mdame.store_account_credentials(tests.account_of('sains-singkat'), 'v2.0a1b2c3d.aXY=.b2xk');
-- The publish stage found no key 0a1b2c3d in its ring for one account; Google refused the other's grant.
select mdame.mark_account_needs_reconnect(tests.account_of('tech-explained'),
  'credentials key missing: credentials of account x are sealed with key 0a1b2c3d, which is not in the key ring (99999999)');
select mdame.mark_account_needs_reconnect(tests.account_of('sains-singkat'), 'invalid_grant: Token has been expired or revoked.');

create temp table healed as
  select * from mdame.reseal_account_credentials(tests.account_of('tech-explained'), 'v2.0a1b2c3d.aXY=.b2xk', 'v2.99999999.aXY=.bmV3');
select is((select health_state from healed), 'ok', 're-sealed with the current key, the account whose key was missing is healthy again');
select is((select health_reason from healed), null, 'with no reason left');
select is((select count(*)::int from mdame.events where kind = 'account_reconnected' and detail->>'account_id' = tests.account_of('tech-explained')::text
                                                  and detail->>'by' = 'credentials rotate'), 1, 'and an event says the rotation did it');

create temp table still as
  select * from mdame.reseal_account_credentials(tests.account_of('sains-singkat'), 'v2.0a1b2c3d.aXY=.b2xk', 'v2.99999999.aXY=.bmV3');
select is((select credentials_enc from still), 'v2.99999999.aXY=.bmV3', 'a refused grant''s credentials are re-sealed as well');
select is((select health_state from still), 'needs_reconnect', 'but a re-seal does not mend a grant Google refused');
select ok((select health_reason from still) like 'invalid_grant%', 'whose reason stays');

select * from finish();
rollback;
