begin;
\ir ../_fixtures.psql
select plan(4);

select is(mdame.get_effective_dimension_config('tech-explained') - 'adapt',
          (select to_jsonb(d) - 'active' - 'created_at' - 'updated_at' - 'adapt' from mdame.dimensions d where id = 'tech-explained'),
          'without moves it is the contract');
select mdame.record_adaptation('tech-explained', 'topic_category.science', '"neutral"', '"favoured"', 'science retains better', '{}', null);
select is(mdame.get_effective_dimension_config('tech-explained')->'adapt'->'topic_categories'->'favoured', '["science"]'::jsonb, 'a favoured category is listed');
select mdame.set_engine_clock(interval '1 hour');
select mdame.record_adaptation('tech-explained', 'video_length', 'null', '47', 'operator', '{}', null);
select is(mdame.get_effective_dimension_config('tech-explained')->'adapt'->'video_length'->'target_s', '47'::jsonb, 'the target length moved');
select is(mdame.get_effective_dimension_config('nobody'), null, 'an unknown dimension is null');

select * from finish();
rollback;
