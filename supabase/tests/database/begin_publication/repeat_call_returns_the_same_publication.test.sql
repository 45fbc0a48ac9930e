begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select mdame.record_upload_session((select id from p), 'http://upload/1');
create temp table again as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));

select is((select id from again), (select id from p), 'the repeat returns the same publication');
select is((select (status, upload_session_uri) from again), ('uploading'::text, 'http://upload/1'::text),
          'as it stands now, with its upload session, not reset');
select is((select count(*) from mdame.publications where unit_id = (select id from u)), 1::bigint, 'no second publication');

select * from finish();
rollback;
