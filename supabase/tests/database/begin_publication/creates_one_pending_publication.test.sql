begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));

select is((select status from p), 'pending', 'a new publication is pending');
select is((select (platform, account_id) from p), ('youtube'::text, tests.account_of('tech-explained')), 'for the account''s platform');
select is((select video_key from p), (select video->>'video_key' from u), 'carrying the unit''s rendered video');
select is((select count(*) from mdame.publications where unit_id = (select id from u)), 1::bigint, 'one publication is stored');

select * from finish();
rollback;
