begin;
select plan(3);

select throws_ok(
  $$select mdame.update_dimension('tech-explained', jsonb_build_object('publishing',
      (select publishing || '{"time_zone": "Nowhere/Land"}' from mdame.dimensions where id = 'tech-explained')))$$,
  'MDV01', 'publishing.time_zone: unknown time zone Nowhere/Land on this database server (its zones: select name from pg_timezone_names)',
  'a zone the server does not know is refused with MDV01, naming the field');
select is((select publishing->>'time_zone' from mdame.dimensions where id = 'tech-explained'), 'UTC', 'the stored zone is unchanged');
select is((select (mdame.update_dimension('tech-explained', '{"daily_limit": 2}')).daily_limit), 2, 'a change that names no publishing passes');

select * from finish();
rollback;
