begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.acquire_lock('t-lock', 'a', 60);

select is(mdame.release_lock('t-lock', 'a'), true, 'the holder releases its lock');
select is((select count(*) from mdame.system_locks where name = 't-lock'), 0::bigint, 'the lock is gone');
select is((mdame.acquire_lock('t-lock', 'b', 60)).holder, 'b', 'another holder can take it at once');

select * from finish();
rollback;
