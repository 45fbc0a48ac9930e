begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('publish');
update mdame.work_units set video = '{"video_key": "renders/x.mp4"}' where id = (select id from u);
update mdame.dimension_accounts set daily_quota_units = 2000 where dimension_id = 'tech-explained';
create temp table p as select * from mdame.begin_publication((select id from u), (select id from mdame.dimension_accounts where dimension_id = 'tech-explained' limit 1));

select is((mdame.reserve_quota((select id from p))).units, 1600, 'the first upload reserves its units');
select is((mdame.reserve_quota((select id from p))).units, 1600, 'a repeated reservation for the same publication is the same one');
select is((select count(*) from mdame.quota_reservations where publication_id = (select id from p)), 1::bigint, 'one reservation row');

create temp table u2 as select * from tests.unit_at_stage('publish');
update mdame.work_units set video = '{"video_key": "renders/y.mp4"}' where id = (select id from u2);
create temp table p2 as select * from mdame.begin_publication((select id from u2), (select id from mdame.dimension_accounts where dimension_id = 'tech-explained' limit 1));
select throws_ok(format('select mdame.reserve_quota(%L)', (select id from p2)), 'MDQ01', null, 'a second upload past the daily quota is refused');

select * from finish();
rollback;
