begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
select mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:1:sim',
  jsonb_build_array(jsonb_build_object('index', 0, 'prompt', 'p', 'narration', 'words here', 'first_word', 0, 'duration_s', 2, 'scene_hash', repeat('b', 64))),
  '{"style": {}, "width": 1080, "height": 1920, "fps": 30}', null,
  jsonb_build_object('check', '{"compared": 0, "threshold": 0.5, "closest": null, "verdict": "passed"}'::jsonb,
    'signature', jsonb_build_object('title', to_jsonb(array_fill(7, array[128])), 'hook', to_jsonb(array_fill(-8, array[128])),
      'script', to_jsonb(array_fill(9, array[128])), 'scene_hashes', jsonb_build_array(repeat('b', 64)))));

select is((select title from mdame.content_signatures where unit_id = (select id from u)), 'Test title', 'the signature is stored under the accepted title');
select is((select hook_minhash[1] from mdame.content_signatures where unit_id = (select id from u)), -8, 'with its values');
select is((select similarity->'checks'->0->>'action' from mdame.work_units where id = (select id from u)), 'passed', 'the passed check is kept on the unit');
select is((select detail->>'action' from mdame.events where unit_id = (select id from u) and kind = 'similarity_checked'), 'passed', 'and logged');

select * from finish();
rollback;
