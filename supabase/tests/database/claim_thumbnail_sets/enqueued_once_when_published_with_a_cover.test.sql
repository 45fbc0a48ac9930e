begin;
\ir ../_fixtures.psql
\ir _covered.psql
select plan(11);

create temp table pub as select * from tests.covered_publication();
select is((select count(*)::int from mdame.thumbnail_sets), 0, 'nothing is enqueued before the video is out');
select tests.confirm_published((select id from pub));
select is((select row(status, cover_key, attempts)::text from mdame.thumbnail_sets where publication_id = (select id from pub)),
  row('queued', 'renders/' || repeat('a', 64) || '.cover.jpg', 0)::text, 'confirming it published enqueues its cover, once');
select is((select count(*)::int from mdame.claim_thumbnail_sets(10, 60)), 0, 'the message waits for YouTube''s processing first (thumbnail_first_check)');

select tests.thumbnail_messages_visible();
create temp table c as select * from mdame.claim_thumbnail_sets(10, 60);
select is((select count(*)::int from c), 1, 'then it is claimed');
select is((select row(external_id, cover_key, attempts)::text from c),
  (select row(p.external_id, 'renders/' || repeat('a', 64) || '.cover.jpg', 1)::text from mdame.publications p where p.id = (select id from pub)),
  'with the video, the cover and its first attempt');
select ok(not (select account_ready from c), 'an account without stored credentials is not ready');
select is((select count(*)::int from mdame.claim_thumbnail_sets(10, 60)), 0, 'a claimed set is invisible until its timeout');

-- Confirmed again (a replayed record): still one set, one message.
update mdame.publications set status = 'uploading' where id = (select id from pub);
update mdame.publications set status = 'published' where id = (select id from pub);
select is((select count(*)::int from pgmq.q_thumbnail_sets), 1, 'a second confirmation enqueues nothing more');

-- No cover, or TikTok: nothing.
create temp table bare as select * from tests.fresh_publication();
select tests.confirm_published((select id from bare));
select is((select count(*)::int from mdame.thumbnail_sets where publication_id = (select id from bare)), 0, 'a render without a cover enqueues nothing');

-- A set no longer queued: its message is archived at the next claim, not handed out.
update mdame.thumbnail_sets set status = 'given_up';
select tests.thumbnail_messages_visible();
select is((select count(*)::int from mdame.claim_thumbnail_sets(10, 60)), 0, 'a set no longer queued is not handed out');
select throws_ok($$select * from mdame.claim_thumbnail_sets(0, 60)$$, '22023', null, 'a bad batch is refused');

select * from finish();
rollback;
