begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.dimension_accounts set updated_at = '2026-01-01T00:00:00Z' where id = tests.account_of('tech-explained');
select is((mdame.set_account_active(tests.account_of('tech-explained'), true)).updated_at, '2026-01-01T00:00:00Z'::timestamptz,
          'resuming an active account changes nothing');
select is((mdame.set_account_active(tests.account_of('tech-explained'), false)).active, false, 'pausing it does');
select throws_ok(format('select mdame.set_account_active(%L, false)', gen_random_uuid()), 'MDN01', null, 'an unknown account is refused');

select * from finish();
rollback;
