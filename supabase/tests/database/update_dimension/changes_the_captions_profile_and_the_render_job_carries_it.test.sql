begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_at_stage('render');
select is(mdame.render_job((select id from u))->>'caption_profile', 'youtube_shorts', 'by default a render job follows the platform the dimension''s accounts are on');

select mdame.update_dimension('tech-explained', '{"captions": {"profile": "reels"}}'::jsonb);
select is((select captions->>'profile' from mdame.dimensions where id = 'tech-explained'), 'reels', 'the profile is changed');
select is(mdame.render_job((select id from u))->>'caption_profile', 'reels', 'and the next render job carries it');

select * from finish();
rollback;
