begin;
\ir ../_fixtures.psql
select plan(3);

create temp table a as select (mdame.connect_account('tech-explained', 'facebook', 'Sky Facts', '100000000000777', '100000000000001')).id;
create temp table p as select (mdame.begin_publication((tests.unit_ready_to_publish()).id, (select id from a))).id;
create temp table q as select (mdame.begin_publication((tests.unit_ready_to_publish()).id, (select id from a))).id;
select mdame.reserve_meta_post((select id from a), (select id from p), 1);

select ok(mdame.release_meta_post((select id from p)), 'the place is given back');
select lives_ok(format('select mdame.reserve_meta_post(%L, %L, 1)', (select id from a), (select id from q)),
  'another post takes the only place of the window');
select ok(not mdame.release_meta_post((select id from p)), 'a repeat gives nothing back');

select * from finish();
rollback;
