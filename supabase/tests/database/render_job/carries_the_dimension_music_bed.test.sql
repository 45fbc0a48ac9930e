begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('render');
create temp table before as select mdame.render_job((select id from u)) as job;
select ok(not ((select job from before) ? 'music'), 'a dimension without a bed gives a job without a music key');

update mdame.dimensions set music = '{"library": "music/calm", "gain_db": -10, "duck_db": 10, "fade_s": 1.5}' where id = 'tech-explained';
create temp table after as select mdame.render_job((select id from u)) as job;
select is((select job->'music' from after), '{"library": "music/calm", "gain_db": -10, "duck_db": 10, "fade_s": 1.5}'::jsonb, 'with a bed the job carries it');
select isnt((select job->>'step_token' from after), (select job->>'step_token' from before), 'and its step token differs from the voice-only job''s');
select is((select job - 'music' - 'step_token' from after), (select job - 'step_token' from before), 'everything else is the same');

select * from finish();
rollback;
