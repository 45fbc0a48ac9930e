begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.storage_deletions (key, kind, not_before) values ('voice/gone.mp3', 'voice', mdame.engine_now());
select ok(mdame.ack_storage_deletion('voice/gone.mp3'), 'the acknowledgement removes the entry');
select is((select count(*)::int from mdame.storage_deletions where key = 'voice/gone.mp3'), 0, 'the entry is gone');
select ok(not mdame.ack_storage_deletion('voice/gone.mp3'), 'a repeated acknowledgement finds none');

select * from finish();
rollback;
