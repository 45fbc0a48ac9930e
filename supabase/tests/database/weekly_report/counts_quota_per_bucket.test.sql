begin;
\ir ../_fixtures.psql
\ir ../_weekly_report_fixtures.psql
select plan(3);

-- YouTube: two uploads settled, one reserved (counts: YouTube may have taken it), one released (does
-- not), a videos.update of 50 units, a correction row (not a call), one upload last week.
insert into mdame.quota_ledger (oauth_client_id, account_id, call_kind, bucket, cost, quota_day, entry, status, created_at)
select 'default', tests.account_of('tech-explained'), k, b, c, '2026-11-18', e, s, t
  from (values ('videos.insert', 'uploads', 1, 'call', 'settled', '2026-11-17 10:00Z'::timestamptz),
               ('videos.insert', 'uploads', 1, 'call', 'settled', '2026-11-18 10:00Z'),
               ('videos.insert', 'uploads', 1, 'call', 'reserved', '2026-11-19 10:00Z'),
               ('videos.insert', 'uploads', 1, 'call', 'released', '2026-11-19 11:00Z'),
               ('videos.update', 'units', 50, 'call', 'settled', '2026-11-19 12:00Z'),
               ('videos.list', 'units', 1, 'call', 'settled', '2026-11-19 12:00Z'),
               ('videos.insert', 'uploads', 97, 'correction', 'settled', '2026-11-19 13:00Z'),
               ('videos.insert', 'uploads', 1, 'call', 'settled', '2026-11-12 10:00Z')) v(k, b, c, e, s, t);
-- TikTok: three calls this week, one of another dimension.
create temp table a as select (mdame.connect_account('tech-explained', 'tiktok', '@tok-creator', null, 'tiktok-client-key')).id;
create temp table a2 as select (mdame.connect_account('sains-singkat', 'tiktok', '@tok-other', null, 'tiktok-client-key')).id;
insert into mdame.tiktok_calls (account_id, call_kind, created_at)
values ((select id from a), 'video.init', '2026-11-18 10:00Z'), ((select id from a), 'status.fetch', '2026-11-18 10:01Z'),
       ((select id from a), 'status.fetch', '2026-11-18 10:02Z'), ((select id from a2), 'video.init', '2026-11-18 10:00Z');
create temp table r as select mdame.weekly_report('tech-explained', '2026-11-16') as j;

select is((select j->'quota'->'youtube' from r),
  '[{"bucket": "units", "used": 51, "calls": 2}, {"bucket": "uploads", "used": 3, "calls": 3}]'::jsonb,
  'YouTube: the calls not released, by bucket, without corrections or last week''s');
select is((select j->'quota'->'tiktok' from r),
  '[{"call_kind": "status.fetch", "calls": 2}, {"call_kind": "video.init", "calls": 1}]'::jsonb, 'TikTok: the dimension''s calls by kind');
select is((select mdame.weekly_report('sains-singkat', '2026-11-16')->'quota'->'tiktok'), '[{"call_kind": "video.init", "calls": 1}]'::jsonb,
  'each dimension counts its own accounts');

select * from finish();
rollback;
