begin;
\ir ../_fixtures.psql
select plan(3);

select throws_ok(format('select mdame.reserve_youtube_call(%L, %L)', gen_random_uuid(), 'videos.insert'), 'MDN01', null, 'an unknown account is refused');
select throws_ok(format('select mdame.reserve_youtube_call(%L, %L)', tests.account_of('tech-explained'), 'captions.insert'), 'MDN01', null,
  'a call the ledger does not price is refused (the engine never inserts captions)');
create temp table p as select * from tests.fresh_publication('sains-singkat');
select throws_ok(format('select mdame.reserve_youtube_call(%L, %L, %L)', tests.account_of('tech-explained'), 'videos.insert', (select id from p)),
  'MDN01', null, 'a publication of another account is refused');

select * from finish();
rollback;
