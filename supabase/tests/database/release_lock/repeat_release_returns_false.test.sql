begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.acquire_lock('t-lock', 'a', 60);
select is(mdame.release_lock('t-lock', 'a'), true, 'the first release frees the lock');
select mdame.acquire_lock('t-lock', 'b', 60);
select is(mdame.release_lock('t-lock', 'a'), false, 'a repeated release reports that nothing was released');
select is((select holder from mdame.system_locks where name = 't-lock'), 'b', 'and leaves the lock the next holder took');

select * from finish();
rollback;
