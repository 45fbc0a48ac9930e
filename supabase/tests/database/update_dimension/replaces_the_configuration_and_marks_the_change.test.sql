begin;
\ir ../_fixtures.psql
select plan(3);

update mdame.dimensions set updated_at = now() - interval '1 day' where id = 'tech-explained';
create temp table d as select * from mdame.update_dimension('tech-explained', '{"display_name": "Tech, Explained", "daily_limit": 3, "narration_min_words": 70}'::jsonb);
select is((select (display_name, daily_limit, narration_min_words, narration_max_words) from d), ('Tech, Explained'::text, 3, 70, 150), 'the named fields change, the others stay');
select ok((select updated_at > now() - interval '1 minute' from d), 'updated_at records the change');
select is((select active from d), true, 'whether it is active is not part of the configuration');

select * from finish();
rollback;
