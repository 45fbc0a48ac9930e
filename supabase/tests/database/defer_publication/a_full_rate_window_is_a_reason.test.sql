begin;
\ir ../_fixtures.psql
select plan(2);

create temp table p as select * from tests.fresh_publication();
create temp table d as select * from mdame.defer_publication((select id from p), 'rate_limited', now() + interval '40 seconds');
select is((select deferred_reason from d), 'rate_limited', 'a platform''s full rate window defers a publication');
select is((select not_before from d), now() + interval '40 seconds', 'until the window has room');

select * from finish();
rollback;
