begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select mdame.record_upload_session((select id from p), 'http://upload/expired');
select mdame.clear_upload_session((select id from p), 'http://upload/expired');
-- Moved into the past so a second clear that rewrote the row would show.
update mdame.publications set updated_at = '2026-01-01 00:00:00+00' where id = (select id from p);
create temp table r as select * from mdame.clear_upload_session((select id from p), 'http://upload/expired');

select is((select (status, upload_session_uri) from r), ('pending'::text, null::text), 'the repeat returns the cleared publication');
select is((select updated_at from mdame.publications where id = (select id from p)), '2026-01-01 00:00:00+00'::timestamptz, 'without writing it again');

select * from finish();
rollback;
