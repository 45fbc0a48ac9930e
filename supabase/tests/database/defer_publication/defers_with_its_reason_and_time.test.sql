begin;
\ir ../_fixtures.psql
select plan(6);

create temp table p as select * from tests.fresh_publication();
select mdame.record_upload_session((select id from p), 'https://upload.example/session-1');
create temp table d as select * from mdame.defer_publication((select id from p), 'quota_spent', '2030-01-01 08:00:00+00');
select is((select row(status, deferred_reason, not_before)::text from d), row('deferred', 'quota_spent', timestamptz '2030-01-01 08:00:00+00')::text,
  'the publication waits, with its reason and when it is tried again');
select is((select upload_session_uri from d), 'https://upload.example/session-1', 'its stored upload session is kept for the resume');
select is(tests.event_count((select unit_id from p), 'publication_deferred', 'publish'), 1::bigint, 'an event records the deferral');
select is((mdame.defer_publication((select id from p), 'needs_reconnect', null)).not_before, null, 'a later deferral replaces the reason and time');

select throws_ok(format('select mdame.defer_publication(%L, %L, null)', (select id from p), 'bored'), '22023', null, 'an unknown reason is refused');
select throws_ok(format('select mdame.defer_publication(%L, %L, null)', gen_random_uuid(), 'quota_spent'), 'MDN01', null, 'an unknown publication is refused');

select * from finish();
rollback;
