begin;
\ir ../_fixtures.psql
select plan(6);

-- Both demo accounts share project default; the project takes two uploads a day.
update mdame.youtube_projects set upload_calls_per_day = 2, api_units_per_day = 60 where oauth_client_id = 'default';
create temp table p1 as select * from tests.fresh_publication();
create temp table p2 as select * from tests.fresh_publication('sains-singkat');
create temp table p3 as select * from tests.fresh_publication();
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p1)),
  'the first upload fits');
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('sains-singkat'), 'videos.insert', (select id from p2)),
  'an upload of another channel of the same project takes the second call');

create temp table r as select * from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L, %L)',
  tests.account_of('tech-explained'), 'videos.insert', (select id from p3)));
select is((select code from r), 'MDQ02', 'a third upload finds the project''s upload bucket spent');
select is((select (detail->>'not_before')::timestamptz from r), mdame.youtube_quota_resets_at(mdame.youtube_quota_day(now())),
  'the refusal says the account may try again at the next Pacific midnight');
select lives_ok(format('select mdame.reserve_youtube_call(%L, %L)', tests.account_of('tech-explained'), 'videos.update'),
  'the units bucket is separate: a 50-unit call still fits');
select is((select code from tests.refusal(format('select mdame.reserve_youtube_call(%L, %L)', tests.account_of('tech-explained'), 'videos.update'))),
  'MDQ02', 'and a second one does not (100 > 60 units)');

select * from finish();
rollback;
