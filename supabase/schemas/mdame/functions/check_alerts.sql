-- The minutely alert check (pg_cron job mdame-alerts): raises quota_deferral_stale once per
-- publication deferred for more than a day (settings key alert_stale_deferral, default 1 day, on
-- the engine's clock), quota_bucket_high once per Google project and quota day when the project's
-- videos.insert bucket is used or reserved past 80 % (settings key alert_upload_bucket_share, a
-- fraction), and wakes the runner when a pending alert is due, so a delivery retry happens without
-- new work. Returns what it found.

create or replace function mdame.check_alerts()
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
  v_after interval;
  v_pub record;
  v_stale integer := 0;
  v_due integer;
  v_share numeric := 0.8;
  v_day date := mdame.youtube_quota_day(v_now);
  v_bucket record;
  v_high integer := 0;
begin
  select case when s.value ~ '^0?\.[0-9]{1,4}$|^1(\.0+)?$' then s.value::numeric end into v_share
    from mdame.settings s where s.key = 'alert_upload_bucket_share';
  v_share := coalesce(v_share, 0.8);
  v_after := mdame.setting_interval('alert_stale_deferral', interval '1 day');
  for v_pub in
    select p.id, p.platform, p.deferred_reason, p.deferred_since, p.not_before, p.unit_id, u.dimension_id, u.run_id,
           a.channel_handle, u.topic->>'title' as title
      from mdame.publications p
      join mdame.work_units u on u.id = p.unit_id
      join mdame.dimension_accounts a on a.id = p.account_id
     where p.status = 'deferred' and p.deferred_since <= v_now - v_after
       and not exists (select 1 from mdame.alerts x where x.dedupe_key = 'quota_deferral_stale:' || p.id)
     order by p.deferred_since
     for update of p skip locked
  loop
    perform mdame.raise_alert(
      'quota_deferral_stale', v_pub.dimension_id, 'quota_deferral_stale:' || v_pub.id,
      format('A %s publication on %s has waited since %s (%s)', v_pub.platform, v_pub.channel_handle,
             mdame.format_utc(v_pub.deferred_since), v_pub.deferred_reason),
      jsonb_build_object('publication_id', v_pub.id, 'unit_id', v_pub.unit_id, 'run_id', v_pub.run_id, 'platform', v_pub.platform,
                         'channel_handle', v_pub.channel_handle, 'reason', v_pub.deferred_reason, 'topic', v_pub.title,
                         'deferred_since', v_pub.deferred_since, 'not_before', v_pub.not_before));
    v_stale := v_stale + 1;
  end loop;
  -- A project's upload bucket filling up: the day's later runs will defer their uploads.
  for v_bucket in
    select pr.oauth_client_id, pr.name, pr.upload_calls_per_day as size, coalesce(sum(l.cost), 0)::integer as used,
           (select count(*) from mdame.dimension_accounts a
             where a.platform = 'youtube' and a.active and coalesce(a.oauth_client_id, 'default') = pr.oauth_client_id) as accounts
      from mdame.youtube_projects pr
      left join mdame.quota_ledger l
        on l.oauth_client_id = pr.oauth_client_id and l.quota_day = v_day and l.bucket = 'uploads' and l.status <> 'released'
     where pr.upload_calls_per_day > 0
     group by pr.oauth_client_id, pr.name, pr.upload_calls_per_day
    having coalesce(sum(l.cost), 0) > v_share * pr.upload_calls_per_day
  loop
    continue when exists (select 1 from mdame.alerts x where x.dedupe_key = format('quota_bucket_high:%s:%s', v_bucket.oauth_client_id, v_day));
    perform mdame.raise_alert(
      'quota_bucket_high', null, format('quota_bucket_high:%s:%s', v_bucket.oauth_client_id, v_day),
      format('Google project %s has used %s of its %s uploads for the quota day %s (%s %%): the day''s later uploads of its %s channel(s) wait for the next quota day',
             coalesce(v_bucket.name, v_bucket.oauth_client_id), v_bucket.used, v_bucket.size, v_day,
             round(100.0 * v_bucket.used / v_bucket.size), v_bucket.accounts),
      jsonb_build_object('oauth_client_id', v_bucket.oauth_client_id, 'project', coalesce(v_bucket.name, 'default'), 'quota_day', v_day,
                         'used', v_bucket.used, 'limit', v_bucket.size, 'accounts', v_bucket.accounts,
                         'resets_at', mdame.youtube_quota_resets_at(v_day),
                         'fix', 'spread the channels over more Google projects: mdame youtube-project add (docs/reference/scale.md)'));
    v_high := v_high + 1;
  end loop;

  select count(*) into v_due from mdame.alerts where status = 'pending' and delivered_by = 'edge' and next_attempt_at <= v_now;
  if v_due > 0 then
    perform mdame.wake_stage_runner('alert_due');
  end if;
  return jsonb_build_object('stale_deferrals', v_stale, 'upload_buckets_high', v_high, 'alerts_due', v_due);
end;
$$;
