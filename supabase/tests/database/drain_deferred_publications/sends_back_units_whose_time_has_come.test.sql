begin;
\ir ../_fixtures.psql
select plan(7);

update mdame.dimension_accounts set credentials_enc = 'v1.aXY=.Y2lwaGVy';
-- A unit per case, each waiting at stage deferred with one deferred publication.
create or replace function pg_temp.waiting(p_reason text, p_not_before timestamptz, p_dimension_id text default 'tech-explained') returns uuid
language plpgsql as $$
declare
  v_unit mdame.work_units := tests.unit_ready_to_publish();
begin
  update mdame.work_units set dimension_id = p_dimension_id where id = v_unit.id;
  perform mdame.defer_publication((mdame.begin_publication(v_unit.id, tests.account_of(p_dimension_id))).id, p_reason, p_not_before);
  perform mdame.set_unit_stage(v_unit.id, 'deferred');
  return v_unit.id;
end $$;
create temp table due as select pg_temp.waiting('quota_spent', now() - interval '1 minute') as id;
create temp table later as select pg_temp.waiting('channel_cap', now() + interval '1 hour') as id;
create temp table reconnect as select pg_temp.waiting('needs_reconnect', null, 'sains-singkat') as id;
select mdame.mark_account_needs_reconnect(tests.account_of('sains-singkat'), 'invalid_grant');

select is(mdame.drain_deferred_publications(), 1, 'one unit''s time has come');
select is((select stage from mdame.work_units where id = (select id from due)), 'publish', 'it is back at publish');
select is(tests.queued_count('stage_tasks', jsonb_build_object('stage', 'publish', 'unit_id', (select id from due))), 1::bigint, 'with its publish task sent');
select is((select stage from mdame.work_units where id = (select id from later)), 'deferred', 'a deferral whose time has not come waits');
select is((select stage from mdame.work_units where id = (select id from reconnect)), 'deferred', 'so does one whose account needs reconnecting');

select mdame.store_account_credentials(tests.account_of('sains-singkat'), 'v1.bmV3.Y2lwaGVy');
select is(mdame.drain_deferred_publications(), 1, 'once the account is reconnected, its unit is sent');
select is(mdame.drain_deferred_publications(), 0, 'a repeat sends nothing more');

select * from finish();
rollback;
