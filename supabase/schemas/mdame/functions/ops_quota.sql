-- The ops dashboard's quota and account health (GET /pipeline/ops/quota, shared/contracts/ops.ts
-- OpsQuota): each Google project's four YouTube buckets for the current quota day (the Pacific
-- date of the engine clock), used (settled) and reserved against the project's size; each TikTok
-- account's rate windows; every dimension account's state and upload window (Instagram and
-- Facebook: the engine's posts in the moving 24 hours, against the limit last read or known, and
-- until when Meta's refusal holds it). Which granted scopes
-- are missing is worked out by the route (OPS_REQUIRED_SCOPES). PL/pgSQL: the declared schema
-- creates it before youtube_quota_day, which a SQL body would need to exist.

create or replace function mdame.ops_quota()
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  return (
  with clock as (
    select mdame.engine_now() as now, mdame.youtube_quota_day(mdame.engine_now()) as day
  ), buckets as (
    select pr.oauth_client_id, b.bucket, b.ord, mdame.youtube_bucket_size(pr, b.bucket) as size
      from mdame.youtube_projects pr
     cross join unnest(array['uploads', 'units', 'stats', 'analytics']) with ordinality b(bucket, ord)
  ), spent as (
    select l.oauth_client_id, l.bucket,
           coalesce(sum(l.cost) filter (where l.status = 'settled'), 0) as used,
           coalesce(sum(l.cost) filter (where l.status = 'reserved'), 0) as reserved
      from mdame.quota_ledger l, clock
     where l.quota_day = clock.day
     group by l.oauth_client_id, l.bucket
  )
  select jsonb_build_object(
    'quota_day', clock.day,
    'resets_at', mdame.youtube_quota_resets_at(clock.day),
    'youtube', (select coalesce(jsonb_agg(jsonb_build_object(
                  'oauth_client_id', b.oauth_client_id, 'bucket', b.bucket,
                  'used', coalesce(s.used, 0), 'reserved', coalesce(s.reserved, 0), 'limit', b.size,
                  'remaining', b.size - coalesce(s.used, 0) - coalesce(s.reserved, 0)) order by b.oauth_client_id, b.ord), '[]'::jsonb)
                  from buckets b left join spent s on s.oauth_client_id = b.oauth_client_id and s.bucket = b.bucket
                 where b.oauth_client_id = 'default'
                    or exists (select 1 from mdame.dimension_accounts a where a.oauth_client_id = b.oauth_client_id and a.platform = 'youtube')),
    'tiktok', (select coalesce(jsonb_agg(jsonb_build_object(
                 'account_id', a.id, 'channel_handle', a.channel_handle, 'call_kind', rl.call_kind,
                 'used', (select count(*) from mdame.tiktok_calls t
                           where t.account_id = a.id and t.call_kind = rl.call_kind
                             and t.created_at > clock.now - make_interval(secs => rl.per_seconds)),
                 'limit', rl.calls, 'window_s', rl.per_seconds) order by a.dimension_id, a.channel_handle, rl.call_kind), '[]'::jsonb)
                 from mdame.dimension_accounts a cross join mdame.tiktok_rate_limits rl
                where a.platform = 'tiktok'),
    'accounts', (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', a.id, 'dimension_id', a.dimension_id, 'platform', a.platform, 'channel_handle', a.channel_handle,
                   'status', case when a.health_state = 'needs_reconnect' then 'needs_reconnect'
                                  when a.credentials_enc is null then 'not_connected'
                                  when not a.active then 'paused'
                                  else 'active' end,
                   'health_reason', a.health_reason, 'health_since', a.health_since, 'oauth_client_id', a.oauth_client_id,
                   'granted_scopes', to_jsonb(a.granted_scopes),
                   'upload_cap_24h', coalesce(ml.quota_total, a.upload_cap_24h),
                   'uploads_24h', case when a.platform = 'youtube'
                     then (select count(*) from mdame.quota_ledger l
                            where l.account_id = a.id and l.entry = 'call' and l.call_kind = 'videos.insert' and l.status <> 'released'
                              and l.created_at > clock.now - interval '24 hours')
                     when a.platform in ('instagram', 'facebook')
                     then (select count(*) from mdame.meta_posts m where m.account_id = a.id and m.reserved_at > clock.now - interval '24 hours')
                     else (select count(*) from mdame.tiktok_calls t
                            where t.account_id = a.id and t.call_kind = 'video.init' and t.created_at > clock.now - interval '24 hours') end,
                   'upload_cap_full_until', coalesce(ml.full_until, a.upload_cap_full_until)) order by a.dimension_id, a.platform, a.channel_handle), '[]'::jsonb)
                   from mdame.dimension_accounts a left join mdame.meta_publishing_limits ml on ml.account_id = a.id))
  from clock);
end;
$$;
