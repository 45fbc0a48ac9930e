begin;
select plan(2);

-- A lock by this transaction shows as the row's xmax being this transaction's id.

create temp table locked as select * from mdame.lock_dimension('no-such-dimension');

select is((select count(*) from locked), 0::bigint, 'an unknown dimension returns no row (the caller answers 404), and no error');
select is((select count(*) from mdame.dimensions where xmax::text = (pg_current_xact_id()::text::bigint % 4294967296)::text), 0::bigint, 'and no dimension is locked');

select * from finish();
rollback;
