begin;
\ir ../_fixtures.psql
\ir ../claim_thumbnail_sets/_covered.psql
select plan(5);

create temp table pub as select * from tests.covered_publication();
select tests.confirm_published((select id from pub));
update mdame.work_units set stage = 'published' where id = (select unit_id from pub);
select ok(mdame.storage_key_in_use('renders/' || repeat('a', 64) || '.cover.jpg'), 'a unit''s render holds its cover');
select mdame.set_engine_clock(interval '60 days');
select is((select deleted from mdame.housekeeping(false) where kind = 'renders'), 0::bigint, 'a render whose thumbnail is still to be set is kept');

update mdame.thumbnail_sets set status = 'set' where publication_id = (select id from pub);
select is((select row(deleted, storage_keys_queued)::text from mdame.housekeeping(false) where kind = 'renders'), row(1, 2)::text,
  'once it is set, the render goes, and both the video and its cover are queued for deletion');
select is((select array_agg(key order by key) from mdame.storage_deletions),
  array['renders/' || repeat('a', 64) || '.cover.jpg', 'renders/' || repeat('a', 64) || '.mp4'], 'the two keys');
select ok(not mdame.storage_key_in_use('renders/' || repeat('a', 64) || '.cover.jpg'), 'a released render does not hold its cover');

select * from finish();
rollback;
