begin;
\ir ../_fixtures.psql
select plan(3);

delete from mdame.unit_reviews;
create temp table late as select * from tests.unit_awaiting_review('reject', '5h');
create temp table soon as select * from tests.unit_awaiting_review('reject', '1h');
create temp table done as select * from tests.unit_awaiting_review('reject', '30m');
select mdame.reject_review((select id from done), 'no');

select is((select array_agg(unit_id) from mdame.list_reviews()), array[(select id from soon), (select id from late)], 'waiting units, soonest expiry first, decided ones left out');
select is((select count(*) from mdame.list_reviews('sains-singkat')), 0::bigint, 'filtered by dimension');
select is((select title from mdame.list_reviews() limit 1), 'Test title', 'with the title to review');

select * from finish();
rollback;
