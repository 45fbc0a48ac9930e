begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.dimensions set created_at = '2026-12-10T06:30:00Z' where id = 'tech-explained';
update mdame.dimensions set created_at = '2026-01-01T00:00:00Z', active = false where id = 'sains-singkat';

select is((select count(*) from mdame.trigger_due_runs('2026-12-10T07:00:00Z')), 0::bigint,
          'a dimension created after its start and a paused one start nothing');
update mdame.dimensions set active = true where id = 'sains-singkat';
create temp table resumed as select * from mdame.trigger_due_runs('2026-12-10T07:01:00Z');
select is((select array_agg(dimension_id) from mdame.run_dimensions where run_id = (select run_id from resumed)), array['sains-singkat'],
          'once resumed the older dimension starts, the same day');
create temp table next_day as select * from mdame.trigger_due_runs('2026-12-11T06:00:00Z');
select is((select array_agg(dimension_id order by dimension_id) from mdame.run_dimensions where run_id = (select run_id from next_day)),
          array['sains-singkat', 'tech-explained'], 'the next day both start, the newer one too');

select * from finish();
rollback;
