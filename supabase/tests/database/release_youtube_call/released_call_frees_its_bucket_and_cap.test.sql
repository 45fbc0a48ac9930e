begin;
\ir ../_fixtures.psql
select plan(5);

update mdame.youtube_projects set upload_calls_per_day = 1 where oauth_client_id = 'default';
create temp table p1 as select * from tests.fresh_publication();
create temp table p2 as select * from tests.fresh_publication();
create temp table e as select * from mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p1));
select is((select code from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p2)))),
  'MDQ02', 'the one upload call of the day is held');

select is((mdame.release_youtube_call((select id from e))).status, 'released', 'the session could not be opened: the call is released');
select is((mdame.release_youtube_call((select id from e))).status, 'released', 'a repeat returns it unchanged');
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p2)),
  'its call is back in the bucket for another publication');
update mdame.youtube_projects set upload_calls_per_day = 2 where oauth_client_id = 'default';
select isnt((mdame.reserve_youtube_call(tests.account_of('tech-explained'), 'videos.insert', (select id from p1))).id, (select id from e),
  'the released publication reserves anew rather than reusing its released row');

select * from finish();
rollback;
