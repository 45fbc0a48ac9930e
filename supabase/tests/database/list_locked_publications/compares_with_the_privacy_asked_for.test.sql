begin;
\ir ../_fixtures.psql
select plan(3);

create temp table chosen as select * from tests.fresh_publication();
create temp table tiktok_locked as select * from tests.fresh_publication();
create temp table tiktok_public as select * from tests.fresh_publication();
select mdame.record_publication(null, (select id from chosen), 'video-private-by-choice', null);
select mdame.record_publication(null, (select id from tiktok_locked), 'post-self-only', null);
select mdame.record_publication(null, (select id from tiktok_public), 'post-public', null);
select mdame.record_publication_privacy((select id from chosen), 'private', 'private');
select mdame.record_publication_privacy((select id from tiktok_locked), 'SELF_ONLY', 'PUBLIC_TO_EVERYONE');
select mdame.record_publication_privacy((select id from tiktok_public), 'PUBLIC_TO_EVERYONE', 'PUBLIC_TO_EVERYONE');

select is((select array_agg(external_id) from mdame.list_locked_publications()), array['post-self-only'],
  'only the upload given another privacy than asked is listed');
select is((select privacy_requested from mdame.publications where id = (select id from tiktok_locked)), 'PUBLIC_TO_EVERYONE',
  'the privacy asked for is kept beside the one given');
select is((select count(*)::int from mdame.list_locked_publications() where external_id = 'video-private-by-choice'), 0,
  'a dimension that asks private is not reported');

select * from finish();
rollback;
