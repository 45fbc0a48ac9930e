-- Alerts are delivered: the notifier claims due alerts, records each send or failed attempt
-- (claim_alerts, record_alert_sent, record_alert_attempt), the operator lists them (list_alerts),
-- the producers raise them in the transaction of their event (triggers on runs, dead letters and
-- accounts; check_alerts for stale deferrals), a dimension may name its own chat, and a minutely
-- job wakes the runner while a delivery is due.

alter table mdame.alerts add column claim_token uuid;
alter table mdame.alerts add column chat_id text;
alter table mdame.alerts add column message_ids bigint[] not null default '{}'::bigint[];
comment on column mdame.alerts.claim_token is 'Set by claim_alerts: only the claimer may record the attempt (a late call after another claim changes nothing).';
comment on column mdame.alerts.message_ids is 'The chat''s message ids of a sent alert, in order (a long alert is split in several messages).';

alter table mdame.dimensions add column alerts jsonb;
alter table mdame.dimensions add constraint dimensions_alerts_check check (((alerts is null) or ((jsonb_typeof(alerts) = 'object'::text) and ((alerts - 'telegram_chat_id'::text) = '{}'::jsonb) and ((not (alerts ? 'telegram_chat_id'::text)) or ((jsonb_typeof((alerts -> 'telegram_chat_id'::text)) = 'string'::text) and ((alerts ->> 'telegram_chat_id'::text) ~ '^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$'::text))))));
comment on column mdame.dimensions.alerts is 'Where this dimension''s alerts go: {telegram_chat_id} overrides the environment''s TELEGRAM_CHAT_ID; null keeps it.';

alter table mdame.publications add column deferred_since timestamp with time zone;
comment on column mdame.publications.deferred_since is 'When the publication last entered status deferred (engine clock), kept by a trigger; null when it is not deferred.';
-- Publications already deferred count from their last change.
update mdame.publications set deferred_since = updated_at where status = 'deferred';

-- The notifier claims the alerts due for delivery, oldest due first: each claimed alert is leased
-- (next_attempt_at moves p_lease_s ahead, so a notifier that dies mid-send leaves it due again
-- later), counts one more attempt and gets a fresh claim token that record_alert_sent and
-- record_alert_attempt require. skip locked: two notifiers never claim the same alert. Each row
-- carries the chat its dimension names (dimensions.alerts.telegram_chat_id), null for the default.

create or replace function mdame.claim_alerts(p_limit integer, p_lease_s integer default 120)
returns table(id uuid, claim_token uuid, kind text, dimension_id text, dedupe_key text, summary text, details jsonb,
              photo_key text, occurrences integer, attempts integer, created_at timestamp with time zone,
              last_raised_at timestamp with time zone, chat_id text)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
begin
  if p_limit is null or p_limit < 1 or p_limit > 100 then
    raise exception 'claim between 1 and 100 alerts, not %', p_limit using errcode = '22023';
  end if;
  if p_lease_s is null or p_lease_s < 1 or p_lease_s > 3600 then
    raise exception 'the lease is 1..3600 seconds, not %', p_lease_s using errcode = '22023';
  end if;
  return query
  with due as (
    select a.id from mdame.alerts a
     where a.status = 'pending' and a.next_attempt_at <= v_now
     order by a.next_attempt_at, a.created_at, a.id
     limit p_limit
     for update skip locked
  ), claimed as (
    update mdame.alerts a
       set claim_token = gen_random_uuid(), attempts = a.attempts + 1, next_attempt_at = v_now + make_interval(secs => p_lease_s)
      from due where a.id = due.id
    returning a.*
  )
  select c.id, c.claim_token, c.kind, c.dimension_id, c.dedupe_key, c.summary, c.details, c.photo_key, c.occurrences,
         c.attempts, c.created_at, c.last_raised_at, d.alerts->>'telegram_chat_id'
    from claimed c left join mdame.dimensions d on d.id = c.dimension_id
   order by c.created_at, c.id;
end;
$$;

revoke all on function mdame.claim_alerts(integer,integer) from public, anon, authenticated;
grant execute on function mdame.claim_alerts(integer,integer) to mdame_engine;
grant execute on function mdame.claim_alerts(integer,integer) to service_role;

-- The chat accepted every message of a claimed alert: it is sent, with the chat and the message
-- ids. Only the holder of the current claim may record it; any other call (a late one, a repeat)
-- returns the row unchanged.

create or replace function mdame.record_alert_sent(p_id uuid, p_claim_token uuid, p_chat_id text, p_message_ids bigint[])
returns mdame.alerts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.alerts;
begin
  select * into v_row from mdame.alerts where id = p_id for update;
  if not found then
    raise exception 'no alert %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.claim_token is distinct from p_claim_token then
    return v_row;
  end if;
  update mdame.alerts
     set status = 'sent', sent_at = mdame.engine_now(), chat_id = left(p_chat_id, 64),
         message_ids = coalesce(p_message_ids, '{}'), last_error = null, claim_token = null
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.record_alert_sent(uuid,uuid,text,bigint[]) from public, anon, authenticated;
grant execute on function mdame.record_alert_sent(uuid,uuid,text,bigint[]) to mdame_engine;
grant execute on function mdame.record_alert_sent(uuid,uuid,text,bigint[]) to service_role;

-- A delivery attempt of a claimed alert failed. A permanent refusal (the chat service said the
-- request itself is wrong) marks it failed with the error. Anything else keeps it pending forever,
-- so an outage loses nothing: it is due again after p_retry_after_s when the service named a wait
-- (a 429's retry_after), else after a backoff that doubles per attempt from 15 s up to 1 hour.
-- Only the holder of the current claim may record; any other call returns the row unchanged.

create or replace function mdame.record_alert_attempt(p_id uuid, p_claim_token uuid, p_error text, p_permanent boolean,
                                                      p_retry_after_s integer default null::integer)
returns mdame.alerts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.alerts;
  v_wait_s double precision;
begin
  select * into v_row from mdame.alerts where id = p_id for update;
  if not found then
    raise exception 'no alert %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.claim_token is distinct from p_claim_token then
    return v_row;
  end if;
  if p_permanent then
    update mdame.alerts set status = 'failed', last_error = left(coalesce(p_error, 'refused'), 2000), claim_token = null
     where id = p_id returning * into v_row;
    return v_row;
  end if;
  v_wait_s := case
    when p_retry_after_s is not null then greatest(1, least(p_retry_after_s, 86400))
    else least(3600, 15 * power(2, least(greatest(v_row.attempts, 1), 12) - 1)) end;
  update mdame.alerts
     set last_error = left(coalesce(p_error, 'failed'), 2000), claim_token = null,
         next_attempt_at = mdame.engine_now() + make_interval(secs => v_wait_s)
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.record_alert_attempt(uuid,uuid,text,boolean,integer) from public, anon, authenticated;
grant execute on function mdame.record_alert_attempt(uuid,uuid,text,boolean,integer) to mdame_engine;
grant execute on function mdame.record_alert_attempt(uuid,uuid,text,boolean,integer) to service_role;

-- The most recent alerts for the operator (`mdame alerts`): newest raised first, with their
-- delivery state.

create or replace function mdame.list_alerts(p_limit integer default 50)
returns setof mdame.alerts
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.alerts order by last_raised_at desc, id limit greatest(1, least(coalesce(p_limit, 50), 500));
$$;

revoke all on function mdame.list_alerts(integer) from public, anon, authenticated;
grant execute on function mdame.list_alerts(integer) to mdame_engine;
grant execute on function mdame.list_alerts(integer) to service_role;

-- Producer: a run that ends failed raises a run_failed alert in the transaction that closes it,
-- with the failed units' last errors (at most five) for the operator.

create or replace function mdame.alert_on_run_failed()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_units jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('unit_id', u.id, 'dimension_id', u.dimension_id, 'error', left(coalesce(u.error, ''), 300))), '[]'::jsonb)
    into v_units
    from (select * from mdame.work_units where run_id = new.id and stage = 'failed' order by updated_at desc limit 5) u;
  perform mdame.raise_alert(
    'run_failed', new.dimension_filter, 'run_failed:' || new.id,
    format('Run %s (%s, %s) failed%s', new.id, new.env, new.run_date, coalesce(': ' || left(new.error, 500), '')),
    jsonb_build_object('run_id', new.id, 'env', new.env, 'run_date', new.run_date, 'trigger_kind', new.trigger_kind,
                       'error', new.error, 'failed_units', v_units));
  return new;
end;
$$;

comment on function mdame.alert_on_run_failed() is 'internal: trigger raising run_failed when a run ends failed';

create trigger pipeline_runs_alert_failed after update of status on mdame.pipeline_runs
  for each row when (new.status = 'failed' and old.status is distinct from 'failed') execute function mdame.alert_on_run_failed();

-- Producer: every dead letter (stage tasks and worker jobs alike go through retry_or_dead_letter)
-- raises an alert in the transaction that writes it. A render dead-lettered because its output
-- failed the quality gate on every attempt (the render runner's "quality gate failed: ..." error,
-- shared/media/quality-gate.ts describeFailures) is a quality_gate_failed alert instead.

create or replace function mdame.alert_on_dead_letter()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_quality boolean := new.queue_name = 'render' and position('quality gate failed:' in new.last_error) > 0;
begin
  if new.unit_id is not null then
    select * into v_unit from mdame.work_units where id = new.unit_id;
  end if;
  if v_quality then
    perform mdame.raise_alert(
      'quality_gate_failed', v_unit.dimension_id, 'quality_gate_failed:' || coalesce(new.unit_id::text, new.queue_name || ':' || new.msg_id),
      format('A render failed the quality gate on every attempt: %s', left(new.last_error, 500)),
      jsonb_build_object('unit_id', new.unit_id, 'run_id', v_unit.run_id, 'topic', v_unit.topic->>'title',
                         'attempts', new.read_ct, 'error', left(new.last_error, 1000), 'dead_letter_id', new.id));
  else
    perform mdame.raise_alert(
      'dead_letter', v_unit.dimension_id, 'dead_letter:' || new.queue_name || ':' || new.msg_id,
      format('A %s task was dead-lettered after %s attempt(s): %s', new.queue_name, new.read_ct, left(new.last_error, 500)),
      jsonb_build_object('queue', new.queue_name, 'msg_id', new.msg_id, 'dead_letter_id', new.id, 'unit_id', new.unit_id,
                         'run_id', v_unit.run_id, 'stage', new.payload->>'stage', 'attempts', new.read_ct,
                         'error', left(new.last_error, 1000), 'fix', format('mdame dlq retry %s', new.id)));
  end if;
  return new;
end;
$$;

comment on function mdame.alert_on_dead_letter() is 'internal: trigger raising dead_letter or quality_gate_failed for a new dead letter';

create trigger dead_letters_alert after insert on mdame.dead_letters
  for each row execute function mdame.alert_on_dead_letter();

-- Producer: an account entering needs_reconnect (mark_account_needs_reconnect, or any other
-- writer of health_state) raises an alert in that transaction, with the command that fixes it.

create or replace function mdame.alert_on_needs_reconnect()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  perform mdame.raise_alert(
    'needs_reconnect', new.dimension_id, 'needs_reconnect:' || new.id,
    format('The %s account %s of %s needs to be connected again: %s', new.platform, new.channel_handle, new.dimension_id,
           coalesce(new.health_reason, 'grant refused')),
    jsonb_build_object('account_id', new.id, 'platform', new.platform, 'channel_handle', new.channel_handle,
                       'reason', new.health_reason,
                       'fix', format('mdame account connect %s --dimension %s --channel %s', new.platform, new.dimension_id, new.channel_handle)));
  return new;
end;
$$;

comment on function mdame.alert_on_needs_reconnect() is 'internal: trigger raising needs_reconnect when an account enters that state';

create trigger dimension_accounts_alert_reconnect after insert or update of health_state on mdame.dimension_accounts
  for each row when (new.health_state = 'needs_reconnect') execute function mdame.alert_on_needs_reconnect();

-- Keeps publications.deferred_since: set (engine clock) when a publication enters status deferred,
-- kept while it stays there (a deferral renewed keeps its first time), cleared when it leaves.

create or replace function mdame.track_deferred_since()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.status <> 'deferred' then
    new.deferred_since := null;
  elsif tg_op = 'INSERT' or old.status is distinct from 'deferred' then
    new.deferred_since := mdame.engine_now();
  else
    new.deferred_since := coalesce(old.deferred_since, mdame.engine_now());
  end if;
  return new;
end;
$$;

comment on function mdame.track_deferred_since() is 'internal: trigger keeping publications.deferred_since';

create trigger publications_deferred_since before insert or update of status on mdame.publications
  for each row execute function mdame.track_deferred_since();

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

revoke all on function mdame.check_alerts() from public, anon, authenticated;
grant execute on function mdame.check_alerts() to mdame_engine;
grant execute on function mdame.check_alerts() to service_role;

do $$
begin
  if not exists (select 1 from cron.job where jobname = 'mdame-alerts') then
    perform cron.schedule('mdame-alerts', '* * * * *', 'select mdame.check_alerts()');
  end if;
end
$$;

select mdame.restrict_function_privileges();
