begin;
\ir ../_fixtures.psql
select plan(3);

-- 500 signatures of the dimension already stored, the oldest first; then one more unit passes the guard.
create temp table old as select (tests.unit_at_stage('published')).id as id, g as n from generate_series(1, 500) g;
insert into mdame.content_signatures (unit_id, dimension_id, title, title_minhash, hook_minhash, script_minhash, scene_hashes, created_at)
select id, 'tech-explained', 'Old ' || n, array_fill(0, array[128]), array_fill(0, array[128]), array_fill(0, array[128]), '{}',
       now() - make_interval(hours => 600 - n)
  from old;
create temp table u as select * from tests.unit_at_stage('plan');
create temp table m as select tests.send_task('plan', (select id from u)) as msg_id;
select mdame.record_scene_plan((select msg_id from m), (select id from u), 'step:t:1:keep',
  jsonb_build_array(jsonb_build_object('index', 0, 'prompt', 'p', 'narration', 'words here', 'first_word', 0, 'duration_s', 2, 'scene_hash', repeat('c', 64))),
  '{"style": {}, "width": 1080, "height": 1920, "fps": 30}', null,
  jsonb_build_object('check', '{"compared": 60, "threshold": 0.5, "closest": null, "verdict": "passed"}'::jsonb,
    'signature', jsonb_build_object('title', to_jsonb(array_fill(1, array[128])), 'hook', to_jsonb(array_fill(1, array[128])),
      'script', to_jsonb(array_fill(1, array[128])), 'scene_hashes', '[]'::jsonb)));

select is((select count(*)::integer from mdame.content_signatures where dimension_id = 'tech-explained'), 500, 'the dimension keeps 500 signatures');
select ok(exists (select 1 from mdame.content_signatures where unit_id = (select id from u)), 'the new one among them');
select ok(not exists (select 1 from mdame.content_signatures where title = 'Old 1'), 'the oldest is gone');

select * from finish();
rollback;
