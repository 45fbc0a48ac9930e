begin;
\ir ../_fixtures.psql
select plan(1);

select throws_ok(format('select mdame.record_upload_session(%L, ''http://upload/1'')', gen_random_uuid()),
                 'MDN01', null, 'a session for a publication that does not exist is refused');

select * from finish();
rollback;
