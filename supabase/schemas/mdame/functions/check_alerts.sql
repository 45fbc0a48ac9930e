-- The minutely alert check (pg_cron job mdame-alerts): raises quota_deferral_stale once per
-- publication deferred for more than a day (settings key alert_stale_deferral, default 1 day, on
-- the engine's clock), and wakes the runner when a pending alert is due, so a delivery retry
-- happens without new work. Returns what it found.

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
begin
  select coalesce((select value::interval from mdame.settings where key = 'alert_stale_deferral'), interval '1 day') into v_after;
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
             to_char(v_pub.deferred_since at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'), v_pub.deferred_reason),
      jsonb_build_object('publication_id', v_pub.id, 'unit_id', v_pub.unit_id, 'run_id', v_pub.run_id, 'platform', v_pub.platform,
                         'channel_handle', v_pub.channel_handle, 'reason', v_pub.deferred_reason, 'topic', v_pub.title,
                         'deferred_since', v_pub.deferred_since, 'not_before', v_pub.not_before));
    v_stale := v_stale + 1;
  end loop;
  select count(*) into v_due from mdame.alerts where status = 'pending' and next_attempt_at <= v_now;
  if v_due > 0 then
    perform mdame.wake_stage_runner('alert_due');
  end if;
  return jsonb_build_object('stale_deferrals', v_stale, 'alerts_due', v_due);
end;
$$;
