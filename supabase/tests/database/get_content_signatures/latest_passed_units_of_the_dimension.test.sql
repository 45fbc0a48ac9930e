begin;
\ir ../_fixtures.psql
select plan(5);

-- Three units that passed the guard (one since rejected) and the unit being checked.
create temp table u as select id, row_number() over () as n from (select (tests.unit_at_stage('published')).id union all
  select (tests.unit_at_stage('published')).id union all select (tests.unit_at_stage('rejected')).id union all select (tests.unit_at_stage('plan')).id) x;
insert into mdame.content_signatures (unit_id, dimension_id, title, title_minhash, hook_minhash, script_minhash, scene_hashes, created_at)
select u.id, 'tech-explained', 'Video ' || u.n, array_fill(u.n::integer, array[128]), array_fill(0, array[128]), array_fill(0, array[128]),
       array[repeat('a', 64)], now() - make_interval(mins => (10 - u.n)::integer)
  from u;

select is((select array_agg(title) from mdame.get_content_signatures('tech-explained', (select id from u where n = 4), 60)),
  array['Video 2', 'Video 1'], 'newest first, the rejected unit and the unit itself left out');
select is((select array_agg(title) from mdame.get_content_signatures('tech-explained', (select id from u where n = 4), 1)), array['Video 2'],
  'at most p_limit');
select is((select jsonb_array_length(signature->'title') from mdame.get_content_signatures('tech-explained', (select id from u where n = 4), 1)), 128,
  'the signature has its 128 values');
select is((select count(*)::integer from mdame.get_content_signatures('other-dimension', (select id from u where n = 4), 60)), 0, 'other dimensions are not read');
select throws_ok($$ select * from mdame.get_content_signatures('tech-explained', null, 0) $$, 'MDS01', null, 'a limit under 1 is refused');

select * from finish();
rollback;
