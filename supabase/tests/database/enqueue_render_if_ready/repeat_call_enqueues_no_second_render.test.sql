begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('media');
update mdame.work_units set voice = tests.sample_voice('voice/v.mp3') where id = (select id from u);
select tests.add_scene((select id from u), 0, 'ready');
select mdame.enqueue_render_if_ready((select id from u));

select is((mdame.enqueue_render_if_ready((select id from u))).stage, 'render', 'the repeat returns the unit at render');
select is(tests.queued_count('render', jsonb_build_object('unit_id', (select id from u))), 1::bigint, 'no second render job');
select is(tests.event_count((select id from u), 'stage_entered', 'render'), 1::bigint, 'the unit enters render once');

select * from finish();
rollback;
