-- watchdog shared helpers: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.assert_pg_net_ready()
 RETURNS void
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  if not mdame.pg_net_ready() then
    raise exception 'pg_net is not installed (no net.http_post or net._http_response): the stage runner cannot be woken'
      using errcode = 'MDN01',
            hint = 'on Supabase: create extension pg_net; on plain Postgres: npm run db:reset, which installs supabase/pg-net-compat/pg_net.sql';
  end if;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.pg_net_ready()
 RETURNS boolean
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select to_regprocedure('net.http_post(text,jsonb,jsonb,jsonb,integer)') is not null and to_regclass('net._http_response') is not null;
$function$
;

CREATE OR REPLACE FUNCTION mdame.vault_secret(p_name text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
begin
  return (select nullif(btrim(s.decrypted_secret), '') from vault.decrypted_secrets s where s.name = p_name limit 1);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.check_alerts()
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$
;

CREATE OR REPLACE FUNCTION mdame.deliver_database_alerts(p_now timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_token text;
  v_chat text;
  v_api text;
  v_env text;
  v_alert mdame.alerts;
  v_found boolean;
  v_status integer;
  v_content text;
  v_error_msg text;
  v_timed_out boolean;
  v_body jsonb;
  v_error text;
  v_wait_s double precision;
  v_request_id bigint;
  v_sent integer := 0;
  v_failed integer := 0;
  v_posted integer := 0;
  v_has_net boolean := mdame.pg_net_ready();
begin
  select value into v_env from mdame.settings where key = 'env';
  v_token := mdame.vault_secret('mdame_telegram_bot_token');
  v_chat := mdame.vault_secret('mdame_telegram_chat_id');
  v_api := rtrim(coalesce(mdame.vault_secret('mdame_telegram_api_url'), 'https://api.telegram.org'), '/');

  -- The answers to what was posted before.
  for v_alert in
    select * from mdame.alerts a
     where a.delivered_by = 'database' and a.status = 'pending' and a.net_request_id is not null
     order by a.created_at
     for update skip locked
  loop
    v_found := false;
    v_status := null;
    v_body := null;
    if v_has_net then
      execute 'select true, status_code, content, error_msg, timed_out from net._http_response
                where id = $1 and created >= $2 - interval ''1 second'' order by created desc limit 1'
         into v_found, v_status, v_content, v_error_msg, v_timed_out using v_alert.net_request_id, v_alert.net_posted_at;
    end if;
    if not coalesce(v_found, false) then
      if v_alert.net_posted_at > p_now - interval '2 minutes' then
        continue;
      end if;
      v_error := 'pg_net recorded no answer within 2 minutes';
    else
      begin
        v_body := v_content::jsonb;
      exception when others then
        v_body := null;
      end;
      if v_status = 200 and (v_body->>'ok') = 'true' then
        update mdame.alerts
           set status = 'sent', sent_at = mdame.engine_now(), chat_id = left(v_chat, 64), last_error = null,
               message_ids = array[(v_body #>> '{result,message_id}')::bigint], net_request_id = null
         where id = v_alert.id;
        v_sent := v_sent + 1;
        continue;
      end if;
      v_error := coalesce(v_body->>'description', v_error_msg, case when v_timed_out then 'timed out' end, format('HTTP %s', v_status));
      if v_token is not null then
        v_error := replace(v_error, v_token, '[redacted]');
      end if;
      if v_status in (400, 403) then
        update mdame.alerts set status = 'failed', last_error = left(v_error, 2000), net_request_id = null where id = v_alert.id;
        v_failed := v_failed + 1;
        continue;
      end if;
    end if;
    v_wait_s := mdame.alert_retry_wait_s(v_alert.attempts,
      case when v_status = 429 and (v_body #>> '{parameters,retry_after}') ~ '^[0-9]{1,6}$'
           then (v_body #>> '{parameters,retry_after}')::integer end);
    update mdame.alerts
       set last_error = left(v_error, 2000), net_request_id = null,
           next_attempt_at = mdame.engine_now() + make_interval(secs => v_wait_s)
     where id = v_alert.id;
  end loop;

  -- What is due now.
  for v_alert in
    select * from mdame.alerts a
     where a.delivered_by = 'database' and a.status = 'pending' and a.net_request_id is null
       and a.next_attempt_at <= mdame.engine_now()
     order by a.next_attempt_at, a.created_at
     limit 10
     for update skip locked
  loop
    if v_token is null or v_chat is null or not v_has_net then
      update mdame.alerts
         set last_error = case when not v_has_net then 'pg_net is not installed: the watchdog cannot deliver its alerts'
                               else format('Vault secret %s is not set: the watchdog cannot deliver its alerts',
                                           case when v_token is null then 'mdame_telegram_bot_token' else 'mdame_telegram_chat_id' end) end,
             next_attempt_at = mdame.engine_now() + interval '10 minutes'
       where id = v_alert.id;
      continue;
    end if;
    v_request_id := net.http_post(
      url := v_api || '/bot' || v_token || '/sendMessage',
      body := jsonb_build_object('chat_id', v_chat, 'disable_web_page_preview', true,
        'text', left(format(E'%s (%s)\n%s\n\n%s', case v_alert.kind
                                 when 'engine_stopped' then '🛑 MD-AME has stopped'
                                 when 'workers_absent' then '🛑 MD-AME workers absent'
                                 when 'engine_recovered' then '✅ MD-AME recovered'
                                 else v_alert.kind end,
                               coalesce(v_env, 'unknown environment'), v_alert.summary,
                               'Sent by the database''s watchdog: mdame alerts lists it.'), 4096)),
      params := '{}'::jsonb,
      headers := jsonb_build_object('Content-Type', 'application/json'),
      timeout_milliseconds := 15000);
    update mdame.alerts
       set net_request_id = v_request_id, net_posted_at = clock_timestamp(), attempts = attempts + 1,
           next_attempt_at = mdame.engine_now() + interval '2 minutes'
     where id = v_alert.id;
    v_posted := v_posted + 1;
  end loop;
  return jsonb_build_object('sent', v_sent, 'failed', v_failed, 'posted', v_posted);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.post_tick_request(p_reason text)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  -- The tick drains for up to 100 s (functions/pipeline/app.ts); a longer timeout lets pg_net record
  -- its real answer instead of a timeout, and pg_net's worker waits on many requests at once.
  c_timeout_ms constant integer := 120000;
  v_url text;
  v_key text;
  v_request_id bigint;
begin
  perform mdame.assert_pg_net_ready();
  v_url := mdame.vault_secret('mdame_functions_url');
  if v_url is null then
    raise exception 'Vault secret mdame_functions_url is not set: the stage runner cannot be woken through pg_net'
      using errcode = 'MDN01',
            hint = 'run: select vault.create_secret(''https://<project-ref>.supabase.co/functions/v1'', ''mdame_functions_url'');';
  end if;
  v_key := mdame.vault_secret('mdame_service_role_key');
  if v_key is null then
    raise exception 'Vault secret mdame_service_role_key is not set: the stage runner cannot be woken through pg_net'
      using errcode = 'MDN01',
            hint = 'run: select vault.create_secret(''<service role key>'', ''mdame_service_role_key'');';
  end if;

  v_request_id := net.http_post(
    url := rtrim(v_url, '/') || '/pipeline/tick',
    body := jsonb_build_object('reason', p_reason),
    params := '{}'::jsonb,
    headers := jsonb_build_object('Authorization', 'Bearer ' || v_key, 'Content-Type', 'application/json'),
    timeout_milliseconds := c_timeout_ms);
  -- A reinstalled pg_net starts its ids again; a row left by the old one is stale by then.
  insert into mdame.stage_runner_wakes (request_id, reason, woken_at, expires_at)
  values (v_request_id, p_reason, clock_timestamp(), clock_timestamp() + make_interval(secs => c_timeout_ms / 1000.0))
  on conflict (request_id) do update set reason = excluded.reason, woken_at = excluded.woken_at, expires_at = excluded.expires_at;
  -- The watchdog dates a failing tick from the first request no tick has answered (record_tick_ok).
  -- Never waited for: a transaction holding the row is recording a request or a tick's end, and a
  -- wake must not queue behind it (nor deadlock with it); the watchdog's probe dates the next one.
  perform 1 from mdame.watchdog_checks where name = 'tick_liveness' and pending_since is null for update skip locked;
  if found then
    update mdame.watchdog_checks set pending_since = clock_timestamp(), updated_at = clock_timestamp() where name = 'tick_liveness';
  end if;
  return v_request_id;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.wake_stage_runner(p_reason text DEFAULT 'enqueue'::text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_setting text;
  v_max_ticks integer := 4;
  v_in_flight integer;
begin
  perform mdame.assert_pg_net_ready();
  -- A setting that is not a count from 1 to 100 keeps the default: a typo must not stop every enqueue.
  select s.value into v_setting from mdame.settings s where s.key = 'stage_runner.max_ticks';
  if v_setting ~ '^[0-9]{1,3}$' and v_setting::integer between 1 and 100 then
    v_max_ticks := v_setting::integer;
  end if;

  -- Responses created after the wake: pg_net indexes them by time, not by id.
  delete from mdame.stage_runner_wakes w
   where w.expires_at <= clock_timestamp()
      or exists (select 1 from net._http_response r where r.created >= w.woken_at and r.id = w.request_id);
  select count(*) into v_in_flight from mdame.stage_runner_wakes;
  if v_in_flight >= v_max_ticks then
    return;
  end if;
  perform mdame.post_tick_request(p_reason);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.watchdog_at(p_now timestamp with time zone)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_env text;
  v_failing jsonb := '[]'::jsonb;
  v_tick mdame.watchdog_checks;
  v_queue mdame.watchdog_checks;
  v_check mdame.watchdog_checks;
  v_item jsonb;
  v_row record;
  v_min_id bigint;
  v_probed boolean := false;
  v_raised integer := 0;
  v_recovered integer := 0;
  v_names text[];
  v_url text;
  v_beat mdame.watchdog_checks;
  -- Each check's grace and the pacing, from the settings (docs/reference/alerts.md, "The watchdog").
  v_tick_after constant interval := mdame.setting_interval('watchdog.tick_after', interval '2 minutes');
  v_probe_every constant interval := mdame.setting_interval('watchdog.probe_every', interval '45 seconds');
  v_net_after constant interval := mdame.setting_interval('watchdog.net_after', interval '3 minutes');
  v_runs_after constant interval := mdame.setting_interval('watchdog.runs_after', interval '15 minutes');
  v_alerts_after constant interval := mdame.setting_interval('watchdog.alerts_after', interval '10 minutes');
  v_workers_after constant interval := mdame.setting_interval('watchdog.workers_after', interval '5 minutes');
  v_repeat_every constant interval := mdame.setting_interval('watchdog.repeat_every', interval '4 hours');
  v_every constant interval := mdame.setting_interval('watchdog.heartbeat_every', interval '5 minutes');
  v_pinged text;
  v_tracking constant text[] := array['tick_liveness', 'heartbeat', 'net_queue'];
begin
  if p_now is null then
    raise exception 'p_now is required' using errcode = '22023';
  end if;
  select value into v_env from mdame.settings where key = 'env';

  -- tick: requested, never finished since.
  -- Read, not locked: wake-ups and ticks write this row, and the watchdog must never wait on them.
  select * into v_tick from mdame.watchdog_checks where name = 'tick_liveness';
  if v_tick.pending_since is not null and v_tick.pending_since <= p_now - v_tick_after then
    v_failing := v_failing || jsonb_build_object('name', 'tick', 'kind', 'engine_stopped', 'since', v_tick.pending_since,
      'text', format('The pipeline tick has failed for %s: no tick requested since %s has finished%s.',
                     mdame.format_duration(p_now - v_tick.pending_since), mdame.format_utc(v_tick.pending_since),
                     case when v_tick.ok_at is null then ', and none ever has'
                          else format(' (the last one ended %s)', mdame.format_utc(v_tick.ok_at)) end));
  end if;
  -- An engine without a recent tick is woken with one, failing or not: the probe finds a stopped
  -- function when no work wakes it, and a thawed one ticks again at once. wake_stage_runner keeps
  -- to the cap on ticks in flight, so a function that never answers gets one request per timeout.
  if v_tick.ok_at is null or v_tick.ok_at <= p_now - v_probe_every then
    begin
      perform mdame.wake_stage_runner('watchdog');
      v_probed := true;
    exception when others then
      v_failing := v_failing || jsonb_build_object('name', 'wake', 'kind', 'engine_stopped', 'since', p_now,
        'text', format('The stage runner cannot be woken: %s', sqlerrm));
    end;
  end if;

  -- pg_net: its queue not moving (its worker, or the stack's sender, is not running).
  if to_regclass('net.http_request_queue') is not null then
    execute 'select min(id) from net.http_request_queue' into v_min_id;
    insert into mdame.watchdog_checks (name) values ('net_queue') on conflict do nothing;
    select * into v_queue from mdame.watchdog_checks where name = 'net_queue' for update;
    if v_min_id is null then
      update mdame.watchdog_checks set pending_since = null, detail = null, updated_at = p_now where name = 'net_queue';
    elsif v_queue.detail is distinct from v_min_id::text then
      update mdame.watchdog_checks set pending_since = p_now, detail = v_min_id::text, updated_at = p_now where name = 'net_queue';
    elsif v_queue.pending_since <= p_now - v_net_after then
      execute 'select count(*) from net.http_request_queue' into v_row;
      v_failing := v_failing || jsonb_build_object('name', 'pg_net', 'kind', 'engine_stopped', 'since', v_queue.pending_since,
        'text', format('pg_net has sent nothing for %s: %s request(s) wait in net.http_request_queue (is its worker running?).',
                       mdame.format_duration(p_now - v_queue.pending_since), v_row.count));
    end if;
  end if;
  -- pg_net: every recent answer a transport failure.
  if to_regclass('net._http_response') is not null then
    execute $q$select count(*) as answered,
                      count(*) filter (where error_msg is not null and not coalesce(timed_out, false)) as failed,
                      min(created) filter (where error_msg is not null) as since,
                      (array_agg(error_msg order by created desc) filter (where error_msg is not null))[1] as last_error
                 from net._http_response where created > $1 - interval '10 minutes' and created <= $1$q$
       into v_row using p_now;
    if v_row.answered >= 3 and v_row.failed = v_row.answered then
      v_failing := v_failing || jsonb_build_object('name', 'pg_net', 'kind', 'engine_stopped', 'since', v_row.since,
        'text', format('Every request pg_net sent in the last 10 min failed (%s of %s), the last with: %s.',
                       v_row.failed, v_row.answered, left(v_row.last_error, 300)));
    end if;
  end if;

  -- cron:JOB: the engine's pg_cron jobs whose last run failed (the recent runs only: the table grows).
  if to_regclass('cron.job_run_details') is not null then
    for v_row in execute $q$
      with recent as (
        select d.jobid, d.runid, d.status, d.return_message, d.start_time
          from cron.job_run_details d
         where d.runid > (select coalesce(max(runid), 0) - 5000 from cron.job_run_details)
      ), last as (
        select distinct on (r.jobid) r.jobid, r.status, r.return_message from recent r order by r.jobid, r.runid desc
      )
      select j.jobname, l.return_message,
             (select min(r.start_time) from recent r
               where r.jobid = j.jobid and r.status = 'failed'
                 and r.runid > coalesce((select max(s.runid) from recent s where s.jobid = j.jobid and s.status = 'succeeded'), 0)) as since
        from cron.job j join last l on l.jobid = j.jobid
       where l.status = 'failed' and j.active
         and j.jobname in (select e.name from mdame.engine_jobs e where e.name <> 'mdame-watchdog')
       order by j.jobname$q$
    loop
      v_failing := v_failing || jsonb_build_object('name', 'cron:' || v_row.jobname, 'kind', 'engine_stopped', 'since', coalesce(v_row.since, p_now),
        'text', format('The pg_cron job %s has failed since %s: %s', v_row.jobname, mdame.format_utc(coalesce(v_row.since, p_now)),
                       left(coalesce(v_row.return_message, 'no message'), 300)));
    end loop;
  end if;

  -- runs: due and not started long after their start.
  select count(*) as n, min(d.due_at) as since, string_agg(d.dimension_id, ', ' order by d.dimension_id) as ids
    into v_row
    from mdame.due_dimensions(p_now) d
   where d.due_at <= p_now - v_runs_after;
  if v_row.n > 0 then
    v_failing := v_failing || jsonb_build_object('name', 'runs', 'kind', 'engine_stopped', 'since', v_row.since,
      'text', format('%s dimension(s) due since %s have not started: %s (pg_cron job mdame-scheduled-runs).',
                     v_row.n, mdame.format_utc(v_row.since), left(v_row.ids, 300)));
  end if;

  -- alerts: what the tick should have delivered (the engine's clock, as the alerts are dated).
  select count(*) as n, min(a.created_at) as since,
         string_agg(format('%s: %s', a.kind, left(a.summary, 160)), E'\n' order by a.created_at) filter (where a.rn <= 3) as oldest,
         (array_agg(a.last_error order by a.created_at desc) filter (where a.last_error is not null))[1] as last_error
    into v_row
    from (select x.*, row_number() over (order by x.created_at) as rn from mdame.alerts x
           where x.status = 'pending' and x.delivered_by = 'edge'
             and x.created_at <= mdame.engine_now() - v_alerts_after) a;
  if v_row.n > 0 then
    v_failing := v_failing || jsonb_build_object('name', 'alerts', 'kind', 'engine_stopped',
      'since', p_now - (mdame.engine_now() - v_row.since),
      'text', format(E'%s alert(s) have waited %s for delivery%s. The oldest:\n%s', v_row.n,
                     mdame.format_duration(mdame.engine_now() - v_row.since),
                     case when v_row.last_error is null then '' else format(' (last error: %s)', left(v_row.last_error, 200)) end,
                     v_row.oldest));
  end if;

  -- workers:Q: jobs waiting with no live worker.
  for v_row in
    select q.* from mdame.queues_without_workers() q
     where q.oldest_waiting_s >= extract(epoch from v_workers_after)
  loop
    v_failing := v_failing || jsonb_build_object('name', 'workers:' || v_row.queue_name, 'kind', 'workers_absent',
      'since', p_now - make_interval(secs => v_row.oldest_waiting_s),
      'text', format('No %s worker is alive while %s job(s) wait, the oldest for %s (%s).', v_row.queue_name, v_row.waiting,
                     mdame.format_duration(make_interval(secs => v_row.oldest_waiting_s)),
                     case when v_row.last_beat_at is null then 'no worker of this queue has ever beaten'
                          else format('last beat %s', mdame.format_utc(v_row.last_beat_at)) end));
  end loop;

  -- A new failure raises one alert; one that goes on is only dated on, and paged again every
  -- watchdog.repeat_every (4 h) while it lasts, so a failure nobody fixed is not forgotten.
  for v_item in select value from jsonb_array_elements(v_failing) loop
    insert into mdame.watchdog_checks as c (name, failing_since, detail, updated_at)
    values (v_item->>'name', (v_item->>'since')::timestamptz, v_item->>'text', p_now)
    on conflict (name) do update
       set failing_since = coalesce(c.failing_since, excluded.failing_since), detail = excluded.detail, updated_at = excluded.updated_at
    returning * into v_check;
    if not v_check.alerted or v_check.paged_at <= p_now - v_repeat_every then
      perform mdame.record_alert(v_item->>'kind', null,
        format('%s:%s:%s', v_item->>'kind', v_check.name, extract(epoch from v_check.failing_since)::bigint)
          || case when v_check.alerted then ':again:' || extract(epoch from p_now)::bigint else '' end,
        case when v_check.alerted then 'Still failing: ' else '' end || (v_item->>'text'),
        jsonb_build_object('check', v_check.name, 'since', v_check.failing_since, 'env', v_env), null, 'database');
      update mdame.watchdog_checks set alerted = true, paged_at = p_now where name = v_check.name;
      v_raised := v_raised + 1;
    end if;
  end loop;

  -- Checks failing before and not now have recovered.
  v_names := array(select value->>'name' from jsonb_array_elements(v_failing));
  for v_check in
    select * from mdame.watchdog_checks c where c.failing_since is not null and not (c.name = any(v_names)) for update
  loop
    if v_check.alerted then
      perform mdame.record_alert('engine_recovered', null, format('engine_recovered:%s:%s', v_check.name, extract(epoch from v_check.failing_since)::bigint),
        format('Recovered: %s works again after %s (%s to %s). It had said: %s',
               case when v_check.name = 'tick' then 'the pipeline tick'
                    when v_check.name like 'workers:%' then format('the %s queue has a live worker and', substr(v_check.name, 9))
                    when v_check.name like 'cron:%' then format('the pg_cron job %s', substr(v_check.name, 6))
                    when v_check.name = 'runs' then 'the scheduled start of runs'
                    when v_check.name = 'alerts' then 'the delivery of alerts'
                    when v_check.name = 'wake' then 'waking the stage runner'
                    else v_check.name end,
               mdame.format_duration(p_now - v_check.failing_since), mdame.format_utc(v_check.failing_since), mdame.format_utc(p_now),
               left(v_check.detail, 500)),
        jsonb_build_object('check', v_check.name, 'since', v_check.failing_since, 'until', p_now, 'env', v_env), null, 'database');
      v_recovered := v_recovered + 1;
    end if;
    if v_check.name = any(v_tracking) then
      update mdame.watchdog_checks set failing_since = null, detail = case when name = 'net_queue' then detail end, alerted = false, paged_at = null, updated_at = p_now
       where name = v_check.name;
    else
      delete from mdame.watchdog_checks where name = v_check.name;
    end if;
  end loop;

  -- The outside monitor (healthchecks.io convention): <url> while all is well, <url>/fail while not.
  v_url := rtrim(mdame.vault_secret('mdame_heartbeat_url'), '/');
  if v_url is not null and mdame.pg_net_ready() then
    insert into mdame.watchdog_checks (name) values ('heartbeat') on conflict do nothing;
    select * into v_beat from mdame.watchdog_checks where name = 'heartbeat' for update;
    if jsonb_array_length(v_failing) = 0 and (v_recovered > 0 or v_beat.ok_at is null or v_beat.ok_at <= p_now - v_every) then
      perform net.http_post(url := v_url, body := jsonb_build_object('status', 'ok', 'env', v_env),
                            timeout_milliseconds := 10000);
      update mdame.watchdog_checks set ok_at = p_now, pending_since = null, updated_at = p_now where name = 'heartbeat';
      v_pinged := 'ok';
    elsif jsonb_array_length(v_failing) > 0 and (v_raised > 0 or v_beat.pending_since is null or v_beat.pending_since <= p_now - v_every) then
      perform net.http_post(url := v_url || '/fail',
                            body := jsonb_build_object('status', 'fail', 'env', v_env,
                                                       'failing', (select jsonb_agg(value->>'text') from jsonb_array_elements(v_failing))),
                            timeout_milliseconds := 10000);
      update mdame.watchdog_checks set pending_since = p_now, updated_at = p_now where name = 'heartbeat';
      v_pinged := 'fail';
    end if;
  end if;

  return jsonb_build_object(
    'failing', (select coalesce(jsonb_agg(value->>'name' order by value->>'name'), '[]'::jsonb) from jsonb_array_elements(v_failing)),
    'raised', v_raised, 'recovered', v_recovered, 'probed', v_probed, 'heartbeat', v_pinged,
    'delivery', mdame.deliver_database_alerts(p_now));
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.watchdog_status()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_missing text[];
  v_active boolean;
begin
  if to_regclass('cron.job') is not null then
    execute 'select active from cron.job where jobname = ''mdame-watchdog''' into v_active;
  end if;
  v_missing := array(
    select n from unnest(array['mdame_telegram_bot_token', 'mdame_telegram_chat_id']) n
     where mdame.vault_secret(n) is null
     order by n);
  return jsonb_build_object(
    'now', clock_timestamp(),
    'tick_ok_at', (select ok_at from mdame.watchdog_checks where name = 'tick_liveness'),
    'tick_pending_since', (select pending_since from mdame.watchdog_checks where name = 'tick_liveness'),
    'failing', (select coalesce(jsonb_agg(jsonb_build_object('check', c.name, 'since', c.failing_since, 'detail', c.detail) order by c.failing_since, c.name), '[]'::jsonb)
                  from mdame.watchdog_checks c where c.failing_since is not null),
    'missing_secrets', to_jsonb(v_missing),
    'heartbeat_url', mdame.vault_secret('mdame_heartbeat_url') is not null,
    'job_active', v_active);
end;
$function$
;

comment on function mdame.assert_pg_net_ready() is 'internal: raises MDN01 when pg_net is missing';
comment on function mdame.pg_net_ready() is 'internal: whether net.http_post and net._http_response exist';
comment on function mdame.vault_secret(text) is 'internal: a Vault secret by name, trimmed, null when missing or blank';

select mdame.restrict_function_privileges();
