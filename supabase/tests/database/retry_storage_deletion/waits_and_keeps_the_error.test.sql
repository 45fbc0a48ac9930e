begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.storage_deletions (key, kind, not_before, attempts) values ('renders/stuck.mp4', 'render', mdame.engine_now(), 2);
select is((select last_error from mdame.retry_storage_deletion('renders/stuck.mp4', 'storage answered 503', 240)), 'storage answered 503', 'the error is kept');
select is((select not_before from mdame.storage_deletions where key = 'renders/stuck.mp4'), mdame.engine_now() + interval '240 seconds', 'it waits the delay on the engine clock');
select throws_ok($$select mdame.retry_storage_deletion('renders/stuck.mp4', 'x', -1)$$, '22023', null, 'a negative delay is refused');

select * from finish();
rollback;
