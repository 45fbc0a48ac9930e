begin;
\ir ../_fixtures.psql
select plan(3);

create temp table u as select * from tests.unit_ready_to_publish();
create temp table p as select * from mdame.begin_publication((select id from u), tests.account_of('tech-explained'));
select mdame.record_upload_session((select id from p), 'http://upload/expired');
create temp table r as select * from mdame.clear_upload_session((select id from p), 'http://upload/expired');

select is((select upload_session_uri from r), null, 'the expired session URI is forgotten');
select is((select status from r), 'pending', 'the publication is pending again');
select is((mdame.record_upload_session((select id from p), 'http://upload/fresh')).upload_session_uri, 'http://upload/fresh',
          'so the next attempt stores a new session');

select * from finish();
rollback;
