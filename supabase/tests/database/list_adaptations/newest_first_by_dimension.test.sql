begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.record_adaptation('tech-explained', 'hook_threshold', '0.72', '0.74', 'one', '{}', null);
select mdame.set_engine_clock(interval '1 hour');
select mdame.record_adaptation('sains-singkat', 'hook_threshold', '0.72', '0.70', 'two', '{}', null);
select is((select array_agg(reason) from mdame.list_adaptations(null, 10)), array['two', 'one'], 'newest first');
select is((select array_agg(reason) from mdame.list_adaptations('tech-explained', 10)), array['one'], 'one dimension''s');
select is((select count(*)::int from mdame.list_adaptations(null, 1)), 1, 'at most the limit');

select * from finish();
rollback;
