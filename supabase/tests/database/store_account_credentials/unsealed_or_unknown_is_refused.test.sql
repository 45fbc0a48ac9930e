begin;
\ir ../_fixtures.psql
select plan(3);

select throws_ok(format('select mdame.store_account_credentials(%L, %L)', tests.account_of('tech-explained'), '{"refresh_token": "plain"}'),
                 '22023', null, 'credentials that are not sealed are refused');
select is((select credentials_enc from mdame.dimension_accounts where id = tests.account_of('tech-explained')), null, 'and nothing is stored');
select throws_ok(format('select mdame.store_account_credentials(%L, %L)', gen_random_uuid(), 'v1.aXY=.eA=='), 'MDN01', null, 'an unknown account is refused');

select * from finish();
rollback;
