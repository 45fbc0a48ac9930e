begin;
\ir ../_fixtures.psql
select plan(5);

create temp table p as select * from tests.fresh_publication();
create temp table e as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p));
create temp table s as select * from mdame.settle_youtube_call((select id from e));
select is((select status from s), 'settled', 'YouTube accepted the call: settled');
select isnt((select settled_at from s), null, 'with the time');
select is((mdame.settle_youtube_call((select id from e))).settled_at, (select settled_at from s), 'a repeat returns the row unchanged');

create temp table e2 as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.list');
select mdame.release_youtube_call((select id from e2));
select throws_ok(format('select mdame.settle_youtube_call(%L)', (select id from e2)), 'MDS01', null, 'a released call cannot be settled');
select throws_ok(format('select mdame.settle_youtube_call(%L)', gen_random_uuid()), 'MDN01', null, 'an unknown call is refused');

select * from finish();
rollback;
