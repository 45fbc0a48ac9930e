begin;
\ir ../_fixtures.psql
select plan(5);

create temp table u as select * from tests.unit_at_stage('rejected');
update mdame.work_units set voice = '{"audio_key": "voice/kept.mp3"}' where id = (select id from u);
select mdame.close_run_if_done((select run_id from u));
insert into mdame.system_locks (name, holder, lease_expires_at) values ('pipeline:dev', 'later-run', now() + interval '1 hour');

create temp table r as select mdame.abort_run((select run_id from u), 'too late') as result;

select is((select result->'run'->>'status' from r), 'completed', 'a completed run stays completed');
select is((select (result->>'cancelled_units')::int from r), 0, 'no unit is cancelled');
select is((select result->'released_assets' from r), '[]'::jsonb, 'no asset is released');
select is((select error from mdame.pipeline_runs where id = (select run_id from u)), null, 'the run records no abort');
select is((select holder from mdame.system_locks where name = 'pipeline:dev'), 'later-run', 'the later run''s lock is untouched');

select * from finish();
rollback;
