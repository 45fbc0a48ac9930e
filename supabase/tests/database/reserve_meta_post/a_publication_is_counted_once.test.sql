begin;
\ir ../_fixtures.psql
select plan(3);

create temp table a as select (mdame.connect_account('tech-explained', 'facebook', 'Sky Facts', '100000000000777', '100000000000001')).id;
create temp table p as select (mdame.begin_publication((tests.unit_ready_to_publish()).id, (select id from a))).id;

select mdame.reserve_meta_post((select id from a), (select id from p), 1);
select mdame.set_engine_clock(interval '1 hour');
select lives_ok(format('select mdame.reserve_meta_post(%L, %L, 1)', (select id from a), (select id from p)),
  'a resumed upload keeps its place in a window its own post fills');
select is((select count(*)::int from mdame.meta_posts where account_id = (select id from a)), 1, 'one place for the publication');
select is((select reserved_at from mdame.meta_posts where publication_id = (select id from p)), now(), 'reserved when it was first reserved');

select * from finish();
rollback;
