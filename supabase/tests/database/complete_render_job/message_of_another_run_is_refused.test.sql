begin;
\ir ../_fixtures.psql
select plan(3);

-- A render job belongs to its unit, and whatever else it names is the unit's: a message naming the
-- unit under another run or dimension is not its job.
create temp table u as select * from tests.unit_at_stage('render');
create temp table m_run as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u), 'run_id', gen_random_uuid())) as msg_id;
create temp table m_dim as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u), 'run_id', (select run_id from u),
                                                                        'dimension_id', 'sains-singkat')) as msg_id;

select throws_ok(format('select mdame.complete_render_job(%s, %L, ''{"video_key": "renders/x.mp4"}'', ''wh-other-run'')', (select msg_id from m_run), (select id from u)),
                 'MDS01', null, 'a message of another run is refused');
select throws_ok(format('select mdame.complete_render_job(%s, %L, ''{"video_key": "renders/x.mp4"}'', ''wh-other-dim'')', (select msg_id from m_dim), (select id from u)),
                 'MDS01', null, 'a message of another dimension is refused');
select is((select (stage, video) from mdame.work_units where id = (select id from u)), ('render'::text, null::jsonb), 'the unit stays at render without a video');

select * from finish();
rollback;
