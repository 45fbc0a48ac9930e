begin;
\ir ../_fixtures.psql
select plan(6);

create temp table c as select '{"daily_limit": 2, "sources": [{"kind": "reddit", "weight": 0.4}, {"kind": "feed", "weight": 0.9}],
  "adapt": {"hook_threshold": {"value": 0.7}, "video_length": {"target_s": null}, "topic_categories": {"favoured": ["space"], "avoided": ["sport"]}}}'::jsonb as v;
select is(mdame.adaptation_value((select v from c), 'daily_volume'), '2'::jsonb, 'daily_volume is daily_limit');
select is(mdame.adaptation_value((select v from c), 'hook_threshold'), '0.7'::jsonb, 'the hook threshold');
select is(mdame.adaptation_value((select v from c), 'video_length'), 'null'::jsonb, 'no target length');
select is(mdame.adaptation_value((select v from c), 'source_weight.feed'), '0.9'::jsonb, 'a source kind''s weight');
select is(array[mdame.adaptation_value((select v from c), 'topic_category.space'), mdame.adaptation_value((select v from c), 'topic_category.sport'),
                mdame.adaptation_value((select v from c), 'topic_category.art')], array['"favoured"', '"avoided"', '"neutral"']::jsonb[], 'category levels');
select is(mdame.adaptation_value((select v from c), 'source_weight.wikipedia'), null, 'a source kind not listed is null');

select * from finish();
rollback;
