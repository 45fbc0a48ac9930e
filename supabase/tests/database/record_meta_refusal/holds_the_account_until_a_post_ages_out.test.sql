begin;
\ir ../_fixtures.psql
select plan(5);

create temp table a as select (mdame.connect_account('tech-explained', 'instagram', '@sky_facts', '17841400000000001', '100000000000001')).id;
create temp table p1 as select (mdame.begin_publication((tests.unit_ready_to_publish()).id, (select id from a))).id;
create temp table p2 as select (mdame.begin_publication((tests.unit_ready_to_publish()).id, (select id from a))).id;
select mdame.reserve_meta_post((select id from a), (select id from p1), 50, 0);
select mdame.set_engine_clock(interval '2 hours');
select mdame.reserve_meta_post((select id from a), (select id from p2), 50, 0);

-- Meta refused p2's post: the posts it counts were made elsewhere, the engine's first ages out first.
select is(mdame.record_meta_refusal((select id from p2)), now() + interval '24 hours',
  'the account waits for the engine''s oldest post to age out');
select is((select full_until from mdame.meta_publishing_limits where account_id = (select id from a)), now() + interval '24 hours',
  'the account is held full until then');
select is((select code from tests.refusal(format('select mdame.reserve_meta_post(%L, %L, 50, 0)', (select id from a), (select id from p2))))
  , 'MDQ03', 'a post is refused meanwhile, whatever Meta reads');
select ok(exists (select 1 from mdame.meta_posts where publication_id = (select id from p2)), 'the refused publication keeps its place');
select is((select code from tests.refusal(format('select mdame.record_meta_refusal(%L)', gen_random_uuid()))), 'MDN01',
  'a publication without a reserved post is refused');

select * from finish();
rollback;
