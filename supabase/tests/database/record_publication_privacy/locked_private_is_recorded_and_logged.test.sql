begin;
\ir ../_fixtures.psql
select plan(5);

create temp table p as select * from tests.fresh_publication();
select mdame.record_publication(null, (select id from p), 'video-1', null);
select is((mdame.record_publication_privacy((select id from p), 'private', 'public')).privacy_status, 'private', 'the privacy YouTube gave is recorded');
select is(tests.event_count((select unit_id from p), 'publication_locked_private', 'publish'), 1::bigint, 'a private upload when public was asked is logged');
select is((mdame.record_publication_privacy((select id from p), 'public', 'public')).privacy_status, 'private', 'a repeat keeps the first one');

create temp table q as select * from tests.fresh_publication();
select mdame.record_publication_privacy((select id from q), 'public', 'public');
select is(tests.event_count((select unit_id from q), 'publication_locked_private'), 0::bigint, 'public as asked logs nothing');
select throws_ok(format('select mdame.record_publication_privacy(%L, %L, %L)', gen_random_uuid(), 'public', 'public'), 'MDN01', null,
  'an unknown publication is refused');

select * from finish();
rollback;
