begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.system_locks (name, holder, lease_expires_at) values ('t-lock', 'a', now() + interval '1 minute');

select is(mdame.release_lock('t-lock', 'b'), false, 'a caller that does not hold the lock cannot release it');
select is((select holder from mdame.system_locks where name = 't-lock'), 'a', 'the holder keeps it');
select is((select lease_expires_at from mdame.system_locks where name = 't-lock'), now() + interval '1 minute', 'with its lease unchanged');

select * from finish();
rollback;
