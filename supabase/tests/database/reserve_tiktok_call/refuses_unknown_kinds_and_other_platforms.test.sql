begin;
\ir ../_fixtures.psql
select plan(3);

create temp table a as select (mdame.connect_account('tech-explained', 'tiktok', '@tok-creator', null, 'tiktok-client-key')).id;
select throws_ok(format('select mdame.reserve_tiktok_call(%L, %L)', (select id from a), 'video.delete'), 'MDN01', null, 'an unknown call kind is refused');
select throws_ok(format('select mdame.reserve_tiktok_call(%L, %L)', gen_random_uuid(), 'video.init'), 'MDN01', null, 'so is an unknown account');
select throws_ok(format('select mdame.reserve_tiktok_call(%L, %L)',
  (select id from mdame.dimension_accounts where dimension_id = 'tech-explained' and platform = 'youtube'), 'video.init'), '22023', null,
  'and a YouTube account');

select * from finish();
rollback;
