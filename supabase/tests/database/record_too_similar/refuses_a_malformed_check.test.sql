begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('plan');
select throws_ok(format($$ select mdame.record_too_similar(1, %L, 'step:x', '{"verdict": "passed"}', 1) $$, (select id from u)), 'MDS01', null,
  'a check that is not too_similar is refused');
select throws_ok(format($$ select mdame.record_too_similar(1, %L, 'step:x', '{"verdict": "too_similar", "closest": null}', 1) $$, (select id from u)), 'MDS01', null,
  'a check without the closest video is refused');
select throws_ok(format($$ select mdame.record_too_similar(1, %L, 'step:x',
  '{"verdict": "too_similar", "closest": {"title": "x", "figures": {"combined": 0.9}}}', 9) $$, (select id from u)), 'MDS01', null,
  'max_regenerations past 3 is refused');

select * from finish();
rollback;
