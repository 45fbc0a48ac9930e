begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.dimension_accounts set credentials_enc = 'v1.aXY=.eA==' where id = tests.account_of('tech-explained');
create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select is(mdame.remove_account(tests.account_of('tech-explained')),
          jsonb_build_object('account_id', tests.account_of('tech-explained'), 'deleted', false, 'publications', 1),
          'an account with a publication is kept as its record');
select is((select (active, credentials_enc) from mdame.dimension_accounts where id = tests.account_of('tech-explained')), (false, null::text),
          'paused, with its credentials erased');
select is((select account_id from mdame.publications where id = (select id from p)), tests.account_of('tech-explained'), 'the publication still names it');

select * from finish();
rollback;
