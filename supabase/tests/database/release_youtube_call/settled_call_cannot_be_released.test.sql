begin;
\ir ../_fixtures.psql
select plan(2);

create temp table p as select * from tests.fresh_publication();
create temp table e as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p));
select mdame.settle_youtube_call((select id from e));
select throws_ok(format('select mdame.release_youtube_call(%L)', (select id from e)), 'MDS01', null, 'a call YouTube counted stays counted');
select throws_ok(format('select mdame.release_youtube_call(%L)', gen_random_uuid()), 'MDN01', null, 'an unknown call is refused');

select * from finish();
rollback;
