begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('media');
create temp table other as select * from tests.unit_at_stage('media');
-- Added out of order: the list follows scene_index, not insertion.
select tests.add_scene((select id from u), 2, 'queued');
select tests.add_scene((select id from u), 0, 'ready');
select tests.add_scene((select id from u), 1, 'failed');
select tests.add_scene((select id from other), 0, 'ready');

select is((select array_agg(scene_index order by ordinality) from mdame.get_scenes((select id from u)) with ordinality),
          array[0, 1, 2], 'a unit''s scenes come in scene order, and only its own');
select is((select array_agg(status order by ordinality) from mdame.get_scenes((select id from u)) with ordinality),
          array['ready', 'failed', 'queued'], 'each with its status');
select is((select array_agg(asset_key is not null order by ordinality) from mdame.get_scenes((select id from u)) with ordinality),
          array[true, false, false], 'and its asset once ready');
select is((select count(*) from mdame.get_scenes(gen_random_uuid())), 0::bigint, 'an unknown unit has no scenes');

select * from finish();
rollback;
