begin;
\ir ../_fixtures.psql
select plan(4);

insert into mdame.system_locks (name, holder, acquired_at, lease_expires_at)
values ('t-lock', 'a', now() - interval '10 minutes', now() + interval '5 seconds');

create temp table first as select * from mdame.acquire_lock('t-lock', 'a', 120);
create temp table second as select * from mdame.acquire_lock('t-lock', 'a', 120);

select is((select holder from second), 'a', 'the holder keeps its lock');
select is((select acquired_at from second), now() - interval '10 minutes', 'since it first acquired it');
select is((select lease_expires_at from second), now() + interval '120 seconds', 'with the lease renewed, not stacked');
select is((select count(*) from mdame.system_locks where name = 't-lock'), 1::bigint, 'still one lock');

select * from finish();
rollback;
