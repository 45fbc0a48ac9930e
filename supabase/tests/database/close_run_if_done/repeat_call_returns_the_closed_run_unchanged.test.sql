begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_at_stage('rejected');
select mdame.close_run_if_done((select run_id from u));
-- Moved into the past so a second close that rewrote it would show.
update mdame.pipeline_runs set finished_at = '2026-01-01 00:00:00+00' where id = (select run_id from u);
-- The lock now belongs to a later run.
insert into mdame.system_locks (name, holder, lease_expires_at) values ('pipeline:dev', 'later-run', now() + interval '1 hour');

create temp table again as select * from mdame.close_run_if_done((select run_id from u));

select is((select status from again), 'completed', 'the repeat returns the closed run');
select is((select finished_at from again), '2026-01-01 00:00:00+00'::timestamptz, 'its finish time is not rewritten');
select is((select holder from mdame.system_locks where name = 'pipeline:dev'), 'later-run', 'the later run''s lock is untouched');
select is((select count(*) from mdame.events where run_id = (select run_id from u) and kind = 'run_completed'), 1::bigint, 'the close is logged once');

select * from finish();
rollback;
