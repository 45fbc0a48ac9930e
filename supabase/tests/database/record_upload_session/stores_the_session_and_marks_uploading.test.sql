begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
create temp table r as select * from mdame.record_upload_session((select id from p), 'http://upload/1');

select is((select upload_session_uri from r), 'http://upload/1', 'the session URI is stored before the first byte');
select is((select status from mdame.publications where id = (select id from p)), 'uploading', 'the publication is uploading');

select * from finish();
rollback;
