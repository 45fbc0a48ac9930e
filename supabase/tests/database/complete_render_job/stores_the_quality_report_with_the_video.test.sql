begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('render');
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
create temp table q as select '{"passed": true, "integrated_lufs": -14.2, "true_peak_dbtp": -1.6, "duration_s": 41.5, "checks": [], "failures": []}'::jsonb as report;
create temp table r as select * from mdame.complete_render_job((select msg_id from m), (select id from u),
                                                               '{"video_key": "renders/v.mp4", "duration_s": 41.5}', 'wh-q1', (select report from q));

select is((select quality from mdame.work_units where id = (select id from u)), (select report from q), 'the quality report is stored on the unit');
select is((select video->>'video_key' from mdame.work_units where id = (select id from u)), 'renders/v.mp4', 'beside the video');
select is((mdame.get_run_status((select run_id from u))->'units'->0->'quality'->>'integrated_lufs')::numeric, -14.2, 'the run status shows the measures');

-- A replay with another report changes nothing.
select mdame.complete_render_job((select msg_id from m), (select id from u), '{"video_key": "renders/v.mp4"}', 'wh-q1',
                                 '{"passed": false, "checks": [], "failures": ["x"]}');
select is((select quality->>'passed' from mdame.work_units where id = (select id from u)), 'true', 'a replayed callback keeps the first report');

select * from finish();
rollback;
