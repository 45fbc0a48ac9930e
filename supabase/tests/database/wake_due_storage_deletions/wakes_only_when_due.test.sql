begin;
\ir ../_fixtures.psql
select plan(2);

delete from mdame.storage_deletions;
insert into mdame.storage_deletions (key, kind, not_before) values ('scenes/later.mp4', 'scene', mdame.engine_now() + interval '1 hour');
select ok(not mdame.wake_due_storage_deletions(), 'nothing due: the runner is not woken');
select mdame.set_engine_clock(interval '2 hours');
select ok(mdame.wake_due_storage_deletions(), 'a due entry wakes the runner');

select * from finish();
rollback;
