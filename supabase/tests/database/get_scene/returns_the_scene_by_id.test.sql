begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('media');
create temp table s0 as select * from tests.add_scene((select id from u), 0, 'ready');
create temp table s1 as select * from tests.add_scene((select id from u), 1, 'queued');

select is((select row(unit_id, scene_index, status, asset_key)::text from mdame.get_scene((select id from s1))),
          (select row(id, 1, 'queued', null::text)::text from u), 'a scene id returns that scene, not its neighbour');
select is((select to_jsonb(g) from mdame.get_scene((select id from s0)) g), (select to_jsonb(s0) from s0),
          'every column as stored: prompt, narration, timing, hash, asset and job');
select is((select count(*) from mdame.get_scene(gen_random_uuid())), 0::bigint, 'an unknown id returns nothing');

select * from finish();
rollback;
