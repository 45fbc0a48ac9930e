begin;
\ir ../_fixtures.psql
select plan(7);

create temp table a1 as select * from mdame.record_adaptation('tech-explained', 'daily_volume', '1', '2', 'full days draw more', '{}', null);
select mdame.set_engine_clock(interval '1 hour');
create temp table a2 as select * from mdame.record_adaptation('tech-explained', 'daily_volume', '2', '3', 'again', '{}', null);
select is(mdame.get_effective_dimension_config('tech-explained')->'daily_limit', '3'::jsonb, 'two moves: 3 in force');
select throws_ok(format('select mdame.revert_adaptation(%L)', (select id from a1)), 'MDS01', null,
                 'a move hidden by a later one cannot be reverted');
select isnt((select reverted_at from mdame.revert_adaptation((select id from a2))), null, 'the move in force is reverted');
select is(mdame.get_effective_dimension_config('tech-explained')->'daily_limit', '2'::jsonb, 'the value before it is in force again');
select isnt((select reverted_at from mdame.revert_adaptation((select id from a1))), null, 'then the first one');
select is(mdame.get_effective_dimension_config('tech-explained')->'daily_limit', '1'::jsonb, 'and the contract''s value is back');
select throws_ok($$select mdame.revert_adaptation(gen_random_uuid())$$, 'MDN01', null, 'an unknown id is refused');

select * from finish();
rollback;
