begin;
select plan(5);

create temp table before as select * from mdame.dimensions where id = 'tech-explained';
create temp table locked as select * from mdame.lock_dimension('tech-explained');

select is((select count(*) from locked), 1::bigint, 'locking a dimension returns its row');
select is((select to_jsonb(l) from locked l), (select to_jsonb(b) from before b), 'unchanged, every column as stored');
-- A row lock sets the row's xmax to the locking transaction, which a second session would wait on.
-- (xmax alone is no proof: a lock by a transaction that has ended leaves it set.)
select is((select xmax::text from mdame.dimensions where id = 'tech-explained'), (pg_current_xact_id()::text::bigint % 4294967296)::text,
          'the row is locked by the caller''s transaction');
select isnt((select xmax::text from mdame.dimensions where id = 'sains-singkat'), (pg_current_xact_id()::text::bigint % 4294967296)::text,
            'and no other dimension is');
select is((select updated_at from mdame.dimensions where id = 'tech-explained'), (select updated_at from before),
          'the lock changes nothing in the row');

select * from finish();
rollback;
