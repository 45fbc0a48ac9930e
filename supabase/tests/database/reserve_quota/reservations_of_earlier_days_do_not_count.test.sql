begin;
\ir ../_fixtures.psql
select plan(2);

update mdame.dimension_accounts set daily_quota_units = 2000 where dimension_id = 'tech-explained';
-- Yesterday's upload used most of that day's quota.
create temp table yesterday as select * from tests.unit_ready_to_publish();
create temp table p_yesterday as select * from mdame.begin_publication((select id from yesterday), tests.account_of('tech-explained'));
insert into mdame.quota_reservations (publication_id, account_id, usage_date, units)
values ((select id from p_yesterday), tests.account_of('tech-explained'), (now() at time zone 'utc')::date - 1, 1600);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
create temp table r as select * from mdame.reserve_quota((select id from p));

select is((select units from r), 1600, 'today''s upload reserves its units although yesterday used most of a day''s quota');
select is((select usage_date from r), (now() at time zone 'utc')::date, 'against today''s UTC date');

select * from finish();
rollback;
