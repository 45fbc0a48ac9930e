begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.system_locks (name, holder, lease_expires_at) values ('t-lock', 'old', now() - interval '1 second');
select is((mdame.acquire_lock('t-lock', 'new', 60)).holder, 'new', 'an expired lease is taken over');
select is(mdame.release_lock('t-lock', 'old'), false, 'the old holder cannot release it any more');
select is(mdame.release_lock('t-lock', 'new'), true, 'the new holder releases it');

select * from finish();
rollback;
