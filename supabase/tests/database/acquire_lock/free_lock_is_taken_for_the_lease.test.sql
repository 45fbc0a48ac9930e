begin;
\ir ../_fixtures.psql
select plan(3);

create temp table l as select * from mdame.acquire_lock('t-free', 'a', 60);

select is((select holder from l), 'a', 'a free lock is taken by the caller');
select is((select lease_expires_at from l), now() + interval '60 seconds', 'for the lease asked for');
select is((select count(*) from mdame.system_locks where name = 't-free'), 1::bigint, 'as one stored lock');

select * from finish();
rollback;
