begin;
\ir ../_fixtures.psql
select plan(4);

create temp table yt as select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo';
create temp table ig as select (mdame.connect_account('tech-explained', 'instagram', '@sky_facts', '17841400000000001', '100000000000001')).id;
create temp table p as select (mdame.begin_publication((tests.unit_ready_to_publish()).id, (select id from ig))).id;

select is((select code from tests.refusal(format('select mdame.reserve_meta_post(%L, %L, 50)', (select id from yt), (select id from p)))), '22023',
  'a YouTube account has no Meta publishing window');
select is((select code from tests.refusal(format('select mdame.reserve_meta_post(%L, %L, -1)', (select id from ig), (select id from p)))), '22023',
  'a negative limit is refused');
select is((select code from tests.refusal(format('select mdame.reserve_meta_post(%L, %L, 50, -1)', (select id from ig), (select id from p)))), '22023',
  'a negative usage is refused');
select is((select code from tests.refusal(format('select mdame.reserve_meta_post(%L, gen_random_uuid(), 50)', (select id from ig)))), 'MDN01',
  'a publication of another account is refused');

select * from finish();
rollback;
