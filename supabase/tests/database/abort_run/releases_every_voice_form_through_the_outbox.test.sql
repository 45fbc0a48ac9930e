begin;
\ir ../_fixtures.psql
select plan(7);

-- A unit voiced by Gemini (a .wav and its timings) with its video, and a deferred unit already
-- published on one platform, of the same run.
create temp table u as select * from tests.unit_at_stage('render');
update mdame.work_units set voice = '{"audio_key": "voice/gem.wav"}', video = '{"video_key": "renders/gem.mp4"}' where id = (select id from u);
insert into mdame.work_units (run_id, dimension_id, unit_key, topic_fingerprint, topic, stage, voice, video)
values ((select run_id from u), 'tech-explained', 'half-out', 'half-out-fp', '{}', 'deferred',
        '{"audio_key": "voice/half.mp3"}', '{"video_key": "renders/half.mp4"}');
insert into mdame.publications (unit_id, account_id, platform, status, video_key, external_id)
select w.id, tests.account_of('tech-explained'), 'youtube', 'published', 'renders/half.mp4', 'yt-half' from mdame.work_units w where w.unit_key = 'half-out';
insert into mdame.dimension_accounts (dimension_id, platform, channel_handle) values ('tech-explained', 'tiktok', '@half-tiktok');
insert into mdame.publications (unit_id, account_id, platform, status, video_key)
select w.id, a.id, 'tiktok', 'deferred', 'renders/half.mp4' from mdame.work_units w, mdame.dimension_accounts a
 where w.unit_key = 'half-out' and a.channel_handle = '@half-tiktok';

create temp table r as select mdame.abort_run((select run_id from u), 'wrong topic') as result;

select is((select array(select jsonb_array_elements_text(result->'released_assets') order by 1) from r),
          array['renders/gem.mp4', 'voice/gem.json', 'voice/gem.wav'], 'the .wav voice, its timings and the video are released');
select is((select array_agg(key || ' ' || kind order by key) from mdame.storage_deletions),
          array['renders/gem.mp4 render', 'voice/gem.json voice', 'voice/gem.wav voice'], 'through the deletion outbox');
select ok((select voice ? 'deleted_at' and video ? 'deleted_at' from mdame.work_units where id = (select id from u)),
          'the failed unit keeps its keys, marked deleted');
select is((select stage from mdame.work_units where unit_key = 'half-out'), 'deferred', 'a unit already published on one platform is not failed');
select is((select array_agg(status order by platform) from mdame.publications p join mdame.work_units w on w.id = p.unit_id where w.unit_key = 'half-out'),
          array['deferred', 'published'], 'and its publications are left to finish');
select ok(not exists (select 1 from mdame.storage_deletions where key like '%half%'), 'its assets stay');
select is((select (result->>'cancelled_units')::int from r), 1, 'one unit is cancelled');

select * from finish();
rollback;
