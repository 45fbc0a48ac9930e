begin;
\ir ../_fixtures.psql
select plan(2);

create temp table a as select * from mdame.record_adaptation('tech-explained', 'topic_category.sport', '"neutral"', '"avoided"', 'x', '{}', null);
select is(mdame.apply_adaptations('{"adapt": {"topic_categories": {"favoured": ["sport"], "avoided": []}}}', 'tech-explained')->'adapt'->'topic_categories',
          '{"favoured": [], "avoided": ["sport"]}'::jsonb, 'a category moves between the lists');
select mdame.revert_adaptation((select id from a));
select is(mdame.apply_adaptations('{"daily_limit": 1}', 'tech-explained'), '{"daily_limit": 1}'::jsonb, 'a reverted move no longer applies');

select * from finish();
rollback;
