begin;
\ir ../_fixtures.psql
select plan(4);

update mdame.dimension_accounts set daily_quota_units = 2000 where dimension_id = 'tech-explained';
-- Two units of the same run dated three days ahead, a third of the following day's run.
create temp table u1 as select * from tests.unit_ready_to_publish();
update mdame.pipeline_runs set run_date = current_date + 3 where id = (select run_id from u1);
create temp table u2 as select * from tests.unit_ready_to_publish();
update mdame.work_units set run_id = (select run_id from u1) where id = (select id from u2);
create temp table u3 as select * from tests.unit_ready_to_publish();
update mdame.pipeline_runs set run_date = current_date + 4 where id = (select run_id from u3);

create temp table p1 as select * from mdame.begin_publication((select id from u1), tests.account_of('tech-explained'));
create temp table p2 as select * from mdame.begin_publication((select id from u2), tests.account_of('tech-explained'));
create temp table p3 as select * from mdame.begin_publication((select id from u3), tests.account_of('tech-explained'));

select is((mdame.reserve_quota((select id from p1))).usage_date, current_date + 3, 'the upload is charged to its run''s day, not to today');
select throws_ok(format('select mdame.reserve_quota(%L)', (select id from p2)), 'MDQ01', null,
  'a second upload of the same run''s day finds that day''s quota spent');
select is((mdame.reserve_quota((select id from p3))).usage_date, current_date + 4, 'the next day''s run finds its day''s quota whole');
select is((select count(*) from mdame.quota_reservations where usage_date = current_date), 0::bigint, 'nothing is charged to the wall-clock day');

select * from finish();
rollback;
