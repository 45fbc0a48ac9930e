begin;
\ir ../_fixtures.psql
select plan(5);

select mdame.store_account_credentials(tests.account_of('tech-explained'), 'v1.aXY=.b2xk');
select throws_ok(format('select mdame.reseal_account_credentials(%L, %L, %L)', gen_random_uuid(), 'v1.aXY=.b2xk', 'v2.0a1b2c3d.aXY=.bmV3'),
                 'MDN01', null, 'an unknown account is refused');
select throws_ok(format('select mdame.reseal_account_credentials(%L, null, %L)', tests.account_of('tech-explained'), 'v2.0a1b2c3d.aXY=.bmV3'),
                 '22023', null, 'without the value read there is nothing to compare');
select throws_ok(format('select mdame.reseal_account_credentials(%L, %L, %L)', tests.account_of('tech-explained'), 'v1.aXY=.b2xk', 'v1.aXY=.bmV3'),
                 '22023', null, 'a re-seal writes the current format only');
select throws_ok(format('select mdame.reseal_account_credentials(%L, %L, %L)', tests.account_of('tech-explained'), 'v1.aXY=.b2xk', '{"refresh_token": "plain"}'),
                 '22023', null, 'credentials that are not sealed are refused');
select is((select credentials_enc from mdame.dimension_accounts where id = tests.account_of('tech-explained')), 'v1.aXY=.b2xk', 'and nothing changed');

select * from finish();
rollback;
