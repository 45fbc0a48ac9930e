begin;
\ir ../_fixtures.psql
select plan(2);

update mdame.dimensions set updated_at = '2026-01-01T00:00:00Z' where id = 'tech-explained';
select is((mdame.set_dimension_active('tech-explained', true)).updated_at, '2026-01-01T00:00:00Z'::timestamptz, 'resuming an active dimension changes nothing');
select isnt((mdame.set_dimension_active('tech-explained', false)).updated_at, '2026-01-01T00:00:00Z'::timestamptz, 'pausing it records the change');

select * from finish();
rollback;
