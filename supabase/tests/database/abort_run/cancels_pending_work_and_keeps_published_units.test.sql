begin;
\ir ../_fixtures.psql
select plan(6);

create temp table u as select * from tests.unit_at_stage('render');
update mdame.work_units set voice = '{"audio_key": "voice/pending.mp3"}', video = '{"video_key": "renders/pending.mp4"}' where id = (select id from u);
create temp table m as select pgmq.send('render', jsonb_build_object('unit_id', (select id from u))) as msg_id;
-- A published unit of the same run.
insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, voice, video)
values ((select run_id from u), 'tech-explained', 'pub-key', 'pub-fp', '{}', 'published',
        '{"audio_key": "voice/published.mp3"}', '{"video_key": "renders/published.mp4"}');

create temp table r as select mdame.abort_run((select run_id from u), 'bad topic') as result;

select is((select result->'run'->>'status' from r), 'rolled_back', 'the run is rolled back');
select is((select (result->>'cancelled_units')::int from r), 1, 'its unpublished unit is cancelled');
select ok(tests.archived('render', (select msg_id from m)), 'its pending render job is cancelled');
select is((select stage from mdame.work_units where unit_key = 'pub-key'), 'published', 'the published unit is untouched');
select is((select array(select jsonb_array_elements_text(result->'released_assets') order by 1) from r),
          array['renders/pending.mp4', 'voice/pending.json', 'voice/pending.mp3'],
          'only the unpublished unit''s assets are released');
select is((mdame.abort_run((select run_id from u), 'again')->>'cancelled_units')::int, 0, 'a repeated abort changes nothing');

select * from finish();
rollback;
