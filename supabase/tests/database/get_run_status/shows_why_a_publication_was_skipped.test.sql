begin;
\ir ../_fixtures.psql
select plan(2);

create temp table fb as select (mdame.connect_account('tech-explained', 'facebook', 'Sky Facts', '100000000000777', '100000000000001')).id;
create temp table u as select * from tests.unit_ready_to_publish();
select mdame.skip_publication((mdame.begin_publication((select id from u), (select id from fb))).id, 'the video lasts 120 s; Facebook Reels last 3 to 90 s');

create temp table s as select mdame.get_run_status((select run_id from u)) -> 'units' -> 0 -> 'publications' -> 0 as p;
select is((select p->>'status' from s), 'skipped', 'the publication shows as skipped');
select is((select p->>'skip_reason' from s), 'the video lasts 120 s; Facebook Reels last 3 to 90 s', 'with its reason');

select * from finish();
rollback;
