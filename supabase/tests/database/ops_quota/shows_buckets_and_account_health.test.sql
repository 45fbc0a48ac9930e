begin;
\ir ../_fixtures.psql
select plan(5);

-- Three settled uploads and a reserved update, of the current quota day (whatever the hour: a
-- Pacific midnight may have just passed).
insert into mdame.quota_ledger (oauth_client_id, account_id, call_kind, bucket, cost, quota_day, status, created_at)
select 'default', tests.account_of('tech-explained'), 'videos.insert', 'uploads', 1, mdame.youtube_quota_day(mdame.engine_now()), 'settled', mdame.engine_now()
  from generate_series(1, 3);
insert into mdame.quota_ledger (oauth_client_id, account_id, call_kind, bucket, cost, quota_day, status, created_at)
values ('default', tests.account_of('tech-explained'), 'videos.update', 'units', 50, mdame.youtube_quota_day(mdame.engine_now()), 'reserved', mdame.engine_now());
update mdame.dimension_accounts set health_state = 'needs_reconnect' where id = tests.account_of('sains-singkat');

create temp table q as select mdame.ops_quota() as o;

select is((select o->>'quota_day' from q), mdame.youtube_quota_day(mdame.engine_now())::text, 'the quota day is the engine clock''s Pacific date');
select is((select b - 'oauth_client_id' from q, jsonb_array_elements(o->'youtube') b where b->>'oauth_client_id' = 'default' and b->>'bucket' = 'uploads'),
          '{"bucket": "uploads", "used": 3, "reserved": 0, "limit": 100, "remaining": 97}'::jsonb, 'settled uploads are used');
select is((select (b->>'reserved')::int from q, jsonb_array_elements(o->'youtube') b where b->>'oauth_client_id' = 'default' and b->>'bucket' = 'units'),
          50, 'reserved units are shown apart');
select is((select a->>'status' from q, jsonb_array_elements(o->'accounts') a where (a->>'id')::uuid = tests.account_of('sains-singkat')),
          'needs_reconnect', 'an account Google refused needs reconnecting');
select is((select (a->>'uploads_24h')::int from q, jsonb_array_elements(o->'accounts') a where (a->>'id')::uuid = tests.account_of('tech-explained')),
          3, 'uploads of the last 24 hours are counted per account');

select * from finish();
rollback;
