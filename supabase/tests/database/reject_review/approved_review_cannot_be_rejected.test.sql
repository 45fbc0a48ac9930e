begin;
\ir ../_fixtures.psql
select plan(1);

create temp table u as select * from tests.unit_awaiting_review();
select mdame.approve_review((select id from u));
select is((tests.refusal(format('select mdame.reject_review(%L, %L)', (select id from u), 'too late'))).code, 'MDS01', 'an approved review cannot be rejected');

select * from finish();
rollback;
