begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_awaiting_review();
select mdame.reject_review((select id from u), 'off topic');
select is((tests.refusal(format('select mdame.approve_review(%L)', (select id from u)))).code, 'MDS01', 'a rejected review cannot be approved');

create temp table v as select * from tests.unit_awaiting_review();
select mdame.abort_run((select run_id from v), 'wrong day');
select is((tests.refusal(format('select mdame.approve_review(%L)', (select id from v)))).code, 'MDS01', 'a unit whose run was aborted cannot be approved');

select is((tests.refusal(format('select mdame.approve_review(%L)', (select id from tests.unit_at_stage('publish'))))).code, 'MDN01',
          'a unit never sent for review is not found');

select * from finish();
rollback;
