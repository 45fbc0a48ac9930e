begin;
\ir ../_fixtures.psql
select plan(3);

select is((select count(*) from mdame.get_accounts('no-such-dimension')), 0::bigint, 'an unknown dimension has no accounts');
select is((select count(*) from mdame.get_accounts(null, gen_random_uuid())), 0::bigint, 'an unknown account id finds nothing');
select is((select count(*) from mdame.get_accounts('sains-singkat', tests.account_of('tech-explained'))), 0::bigint,
          'an account asked for under another dimension is not returned: both filters apply');

select * from finish();
rollback;
