begin;
\ir ../_fixtures.psql
select plan(2);

create temp table p as select * from tests.fresh_publication();
select mdame.record_publication(null, (select id from p), 'video-1', null);
select is((mdame.defer_publication((select id from p), 'quota_spent', now() + interval '1 hour')).status, 'published',
  'a publication already published stays published');
select is(tests.event_count((select unit_id from p), 'publication_deferred'), 0::bigint, 'and nothing is logged');

select * from finish();
rollback;
