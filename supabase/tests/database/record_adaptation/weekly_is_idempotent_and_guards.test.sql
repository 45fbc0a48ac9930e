begin;
\ir ../_fixtures.psql
select plan(6);

update mdame.dimensions set sources = '[{"kind": "hacker_news", "weight": 0.6, "list": "top", "limit": 30}, {"kind": "reddit", "weight": 0.6, "subreddit": "space", "limit": 25}]'
 where id = 'tech-explained';
create temp table a as select * from mdame.record_adaptation('tech-explained', 'source_weight.reddit', '0.6', '0.5', 'reddit retains worse', '{}', '2026-03-02');
select is((select id from mdame.record_adaptation('tech-explained', 'source_weight.reddit', '0.5', '0.4', 'again', '{}', '2026-03-02')), (select id from a),
          'the same week''s move of the same parameter is returned unchanged');
select is((select count(*)::int from mdame.adaptations), 1, 'and not recorded twice');
select is(mdame.get_effective_dimension_config('tech-explained')->'sources'->1->'weight', '0.5'::jsonb, 'the source''s weight moved');
select is(mdame.get_effective_dimension_config('tech-explained')->'sources'->0->'weight', '0.6'::jsonb, 'the other source kept its weight');
select mdame.set_adaptation_pin('tech-explained', 'source_weights', true);
select throws_ok($$select mdame.record_adaptation('tech-explained', 'source_weight.hacker_news', '0.6', '0.7', 'x', '{}', '2026-03-09')$$,
                 'MDS01', null, 'a parameter of a pinned group does not move');
select throws_ok($$select mdame.record_adaptation('nobody', 'hook_threshold', '0.72', '0.74', 'x', '{}', null)$$,
                 'MDN01', null, 'an unknown dimension is refused');

select * from finish();
rollback;
