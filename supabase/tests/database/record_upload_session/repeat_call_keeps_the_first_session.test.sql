begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select mdame.record_upload_session((select id from p), 'http://upload/1');

select is((mdame.record_upload_session((select id from p), 'http://upload/1')).upload_session_uri, 'http://upload/1', 'the same session again is kept');
select is((mdame.record_upload_session((select id from p), 'http://upload/2')).upload_session_uri, 'http://upload/1',
          'a session opened by a racing attempt does not replace the first');
select is((select (status, upload_session_uri) from mdame.publications where id = (select id from p)), ('uploading'::text, 'http://upload/1'::text),
          'the stored publication keeps the first session');

select * from finish();
rollback;
