begin;
\ir ../_fixtures.psql
select plan(2);

select throws_ok(format('select mdame.reserve_quota(%L)', gen_random_uuid()), 'MDN01', null, 'a publication that does not exist reserves nothing');
select is((select count(*) from mdame.quota_reservations), 0::bigint, 'no reservation is written');

select * from finish();
rollback;
