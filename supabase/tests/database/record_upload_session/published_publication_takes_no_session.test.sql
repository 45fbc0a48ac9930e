begin;
\ir ../_fixtures.psql
select plan(2);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
update mdame.publications set status = 'published', external_id = 'vid-1', published_at = now() where id = (select id from p);
create temp table r as select * from mdame.record_upload_session((select id from p), 'http://upload/after');

select is((select (status, upload_session_uri) from r), ('published'::text, null::text), 'a published publication is returned unchanged');
select is((select status from mdame.publications where id = (select id from p)), 'published', 'and stays published');

select * from finish();
rollback;
