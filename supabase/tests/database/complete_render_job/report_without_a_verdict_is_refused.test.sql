begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;

select throws_ok(
  format($$select mdame.complete_render_job(%s, %L, '{"video_key": "renders/v.mp4"}', 'wh-q2', '{"integrated_lufs": -14}')$$,
         (select msg_id from m), (select id from u)),
  '22023', null, 'a quality report without a boolean verdict is refused');
select is((select (stage, quality) from mdame.work_units where id = (select id from u)), ('render'::text, null::jsonb), 'and the unit stays at render with nothing stored');

select * from finish();
rollback;
