begin;
\ir ../_fixtures.psql
select plan(2);

update mdame.dimension_accounts set credentials_enc = 'v1.aXY=.Y2lwaGVy';
create temp table u as select (tests.unit_ready_to_publish()).id;
select mdame.defer_publication((mdame.begin_publication((select id from u), tests.account_of('tech-explained'))).id,
  'quota_spent', mdame.youtube_quota_resets_at(mdame.youtube_quota_day(now())));
select mdame.set_unit_stage((select id from u), 'deferred');

select is(mdame.drain_deferred_publications(), 0, 'before the Pacific midnight the publication waits');
select mdame.set_engine_clock(interval '25 hours');
select is(mdame.drain_deferred_publications(), 1, 'once the engine''s clock has passed it, the unit is sent back to publish');

select * from finish();
rollback;
