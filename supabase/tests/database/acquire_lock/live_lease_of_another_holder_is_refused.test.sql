begin;
\ir ../_fixtures.psql
select plan(3);

select is((mdame.acquire_lock('t-lock', 'a', 60)).holder, 'a', 'a free lock is taken');
select throws_ok($$ select mdame.acquire_lock('t-lock', 'b', 60) $$, 'MDL01', null, 'a live lease is not taken by another holder');
select is((mdame.acquire_lock('t-lock', 'a', 120)).holder, 'a', 'the holder extends its own lease');

select * from finish();
rollback;
