-- Delivery of the alerts the watchdog raised (delivered_by database) by the database itself, so an
-- alert that the Edge Function has stopped never waits on it: a plain-text sendMessage to the
-- Telegram Bot API through pg_net, with the bot token and chat from Vault (mdame_telegram_bot_token,
-- mdame_telegram_chat_id; mdame_telegram_api_url when it is not https://api.telegram.org). pg_net
-- answers later, so each call first reads the answers to the requests it posted before: 200 with
-- ok marks the alert sent with its message id, 429 waits Telegram's retry_after, 400 or 403 marks
-- it failed with Telegram's description, anything else (and no answer within 2 minutes) is tried
-- again after the backoff record_alert_attempt uses (15 s doubling to 1 hour), forever. Then it
-- posts the alerts due, at most 10 a call. Without a token or a chat the alerts stay pending with
-- the reason. The token is kept out of every recorded error.

create or replace function mdame.deliver_database_alerts(p_now timestamp with time zone)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
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
$$;

comment on function mdame.deliver_database_alerts(timestamp with time zone) is 'internal: the watchdog''s own delivery of its alerts through pg_net';
