begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('render');
update mdame.work_units set stage_deadline = now() - interval '1 second',
       stage_attempts = (select max_attempts from mdame.stage_policies where stage = 'render')
 where id = (select id from u);

select is((mdame.recover_overdue_work()->>'failed')::int, 1, 'an overdue unit with no attempts left fails');
select is((select stage from mdame.work_units where id = (select id from u)), 'failed', 'explicitly');
select alike((select error from mdame.work_units where id = (select id from u)), 'render: deadline passed after % attempt(s)', 'with the reason');

select * from finish();
rollback;
