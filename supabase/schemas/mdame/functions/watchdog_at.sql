-- The watchdog's checks at p_now (real time): what has stopped, since when, raised and delivered
-- without the processes it watches. mdame.watchdog (pg_cron job mdame-watchdog, every minute) calls
-- it with the clock; tests call it with a chosen time. Each check that fails past its grace
-- (settings keys, intervals) raises one alert when it starts failing, another every
-- watchdog.repeat_every (4 h) while it goes on, and one engine_recovered when it passes again:
--   tick      a tick was requested (pg_net) and no tick has finished since, for watchdog.tick_after
--             (2 min: a tick ends within 100 s); an engine with no tick for watchdog.probe_every
--             (45 s) is woken with one, so a stopped function is found within about four minutes
--             even when no work wakes it, and one that comes back ticks again at once;
--   wake      the stage runner cannot be woken at all (no pg_net, a Vault secret missing);
--   pg_net    pg_net's queue has not moved for watchdog.net_after (3 min), or every one of at least
--             3 requests answered in the last 10 min failed at the transport (timeouts aside: a
--             slow answer is the tick's check);
--   cron:JOB  the engine's pg_cron job JOB failed at its last run;
--   runs      dimensions due for watchdog.runs_after (15 min) and not started;
--   alerts    alerts the tick should deliver have waited for watchdog.alerts_after (10 min);
--   workers:Q jobs have waited on worker queue Q for watchdog.workers_after (5 min) with no live worker.
-- Its alerts (engine_stopped, workers_absent, engine_recovered) are delivered by the watchdog
-- itself (mdame.deliver_database_alerts). With the Vault secret mdame_heartbeat_url, the outside
-- monitor's URL gets a ping every watchdog.heartbeat_every (5 min) while all is well, and <url>/fail
-- as often while something has stopped (the healthchecks.io convention), so a database that is
-- gone is noticed outside it.

create or replace function mdame.watchdog_at(p_now timestamp with time zone)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
$$;

comment on function mdame.watchdog_at(timestamp with time zone) is 'internal: the watchdog''s checks at a given time (mdame.watchdog, tests)';
