begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table other as select * from tests.unit_at_stage('script');

select is((select count(*) from mdame.get_work_unit((select id from u))), 1::bigint, 'a unit id returns one unit');
select is((select row(id, run_id, dimension_id, stage)::text from mdame.get_work_unit((select id from u))),
          (select row(id, run_id, 'tech-explained', 'plan')::text from u), 'the one asked for, at its stage, not another unit');
select is((select to_jsonb(w) from mdame.get_work_unit((select id from u)) w), (select to_jsonb(w) from mdame.work_units w where id = (select id from u)),
          'every column as stored: topic, script, lease, video');
select is((select count(*) from mdame.get_work_unit(gen_random_uuid())), 0::bigint, 'an unknown id returns nothing');

select * from finish();
rollback;
