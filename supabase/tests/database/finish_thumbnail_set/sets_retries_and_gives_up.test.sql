begin;
\ir ../_fixtures.psql
\ir ../claim_thumbnail_sets/_covered.psql
select plan(10);

create temp table pub as select * from tests.covered_publication();
select tests.confirm_published((select id from pub));
select tests.thumbnail_messages_visible();
create temp table c as select * from mdame.claim_thumbnail_sets(10, 60);

-- Processing not done yet: again later, the reason kept.
select is((mdame.finish_thumbnail_set((select publication_id from c), (select msg_id from c), 'YouTube is still processing the video', 90)).status,
  'queued', 'a retry keeps the set queued');
select is((select last_error from mdame.thumbnail_sets), 'YouTube is still processing the video', 'with its reason');
select ok((select vt from pgmq.q_thumbnail_sets) > now() + interval '80 seconds', 'its message comes back after the delay');
select throws_ok($$select mdame.finish_thumbnail_set((select publication_id from c), (select msg_id from c), 'again', 0)$$, '22023', null,
  'a retry needs a delay of 1 s .. 7 days');

-- Set: done, archived, logged.
select is((mdame.finish_thumbnail_set((select publication_id from c), (select msg_id from c))).status, 'set', 'a success sets it');
select is((select count(*)::int from pgmq.q_thumbnail_sets), 0, 'its message is archived');
select is(tests.event_count((select unit_id from pub), 'thumbnail_set', 'publish'), 1::bigint, 'an event thumbnail_set records it');
select is((mdame.finish_thumbnail_set((select publication_id from c), (select msg_id from c), 'late', 60)).status, 'set',
  'a late call changes nothing');

-- Given up: another set, for good.
create temp table pub2 as select * from tests.covered_publication();
update mdame.work_units set video = jsonb_set(video, '{cover_key}', to_jsonb('renders/' || repeat('b', 64) || '.cover.jpg')) where id = (select unit_id from pub2);
select tests.confirm_published((select id from pub2));
select is((mdame.finish_thumbnail_set((select id from pub2), (select msg_id from mdame.thumbnail_sets where publication_id = (select id from pub2)),
  'thumbnails.set refused the image (400 invalidImage)', null, true)).status, 'given_up', 'a give-up ends it');
select throws_ok($$select mdame.finish_thumbnail_set(gen_random_uuid(), 1)$$, 'MDN01', null, 'an unknown set is refused');

select * from finish();
rollback;
