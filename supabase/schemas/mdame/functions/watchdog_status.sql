-- What the watchdog knows, for `mdame doctor`: when the last tick ended and whether one is pending,
-- the checks failing now (since when, what the watchdog said), whether it can page (which Vault
-- secret is missing if not: it never returns a secret's value) and whether an outside monitor's URL
-- is set. Real time, as the watchdog keeps it.

create or replace function mdame.watchdog_status()
returns jsonb
language plpgsql
stable security definer
set search_path = ''
as $$
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
$$;
