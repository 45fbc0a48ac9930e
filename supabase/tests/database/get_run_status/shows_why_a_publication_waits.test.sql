begin;
\ir ../_fixtures.psql
select plan(1);

create temp table p as select * from tests.fresh_publication();
select mdame.defer_publication((select id from p), 'channel_cap', '2030-01-01 00:00:00+00');
select is((select mdame.get_run_status(u.run_id)->'units'->0->'publications'->0 from mdame.work_units u where u.id = (select unit_id from p)),
  jsonb_build_object('platform', 'youtube', 'status', 'deferred', 'external_id', null, 'deferred_reason', 'channel_cap',
                     'not_before', timestamptz '2030-01-01 00:00:00+00', 'privacy_status', null, 'skip_reason', null),
  'a deferred publication shows its reason and when it is tried again');

select * from finish();
rollback;
