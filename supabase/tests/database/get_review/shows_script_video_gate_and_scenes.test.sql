begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_awaiting_review();
select tests.add_scene((select id from u), 0, 'ready');
create temp table r as select mdame.get_review((select id from u)) as review;

select is((select review->>'stage' from r), 'awaiting_review', 'the unit''s stage');
select is((select review->'script'->>'title' from r), 'Test title', 'its script');
select is((select review->'video'->>'video_key' from r), 'renders/' || (select id from u) || '.mp4', 'its video');
select is((select (review->'quality'->>'passed')::boolean from r), true, 'its quality gate');
select is((select jsonb_array_length(review->'scenes') from r), 1, 'its scenes');

select * from finish();
rollback;
