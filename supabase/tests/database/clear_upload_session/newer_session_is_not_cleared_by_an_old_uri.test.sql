begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select mdame.record_upload_session((select id from p), 'http://upload/old');
select mdame.clear_upload_session((select id from p), 'http://upload/old');
select mdame.record_upload_session((select id from p), 'http://upload/new');

-- An attempt still holding the old URI finds it expired too, and asks to clear it.
create temp table r as select * from mdame.clear_upload_session((select id from p), 'http://upload/old');
select is((select upload_session_uri from r), 'http://upload/new', 'the newer session is kept');
select is((select status from mdame.publications where id = (select id from p)), 'uploading', 'and the publication keeps uploading');

select * from finish();
rollback;
