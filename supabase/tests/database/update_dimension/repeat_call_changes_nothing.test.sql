begin;
\ir ../_fixtures.psql
select plan(2);

update mdame.dimensions set updated_at = '2026-01-01T00:00:00Z' where id = 'tech-explained';
create temp table before as select * from mdame.dimensions where id = 'tech-explained';
create temp table d as select * from mdame.update_dimension('tech-explained',
  (select to_jsonb(b) - 'active' - 'created_at' - 'updated_at' from before b));
select is((select updated_at from d), '2026-01-01T00:00:00Z'::timestamptz, 'the same configuration again leaves updated_at alone');
select is((select to_jsonb(d) from d), (select to_jsonb(b) from before b), 'and the row as it was');

select * from finish();
rollback;
