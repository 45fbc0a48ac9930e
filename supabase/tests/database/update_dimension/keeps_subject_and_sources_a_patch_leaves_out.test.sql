begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.dimensions set subject = '{"keywords": ["telescope"], "categories": [], "excluded_terms": []}', min_score = 0.5 where id = 'tech-explained';
select mdame.update_dimension('tech-explained', '{"daily_limit": 3}'::jsonb);
select is((select (subject->'keywords', min_score) from mdame.dimensions where id = 'tech-explained'), ('["telescope"]'::jsonb, 0.5::double precision),
          'a change that names neither subject nor threshold keeps them');

select mdame.update_dimension('tech-explained', '{"sources": [{"kind": "hacker_news", "list": "best", "limit": 10, "weight": 1}], "min_score": 0.2}'::jsonb);
select is((select (sources->0->>'kind', min_score) from mdame.dimensions where id = 'tech-explained'), ('hacker_news'::text, 0.2::double precision),
          'new sources and threshold replace the old ones');
select throws_ok($$select mdame.update_dimension('tech-explained', '{"min_score": 1.5}'::jsonb)$$, '23514', null, 'a threshold over 1 is refused');

select * from finish();
rollback;
