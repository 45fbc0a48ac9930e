-- The daily cron trigger: today's dimensions whose configuration today's runs have not started yet.

create or replace function mdame.trigger_scheduled_run()
returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_env text;
  v_run_id uuid;
begin
  select value into v_env from mdame.settings where key = 'env';
  select t.run_id into v_run_id from mdame.trigger_run(v_env, 'cron', (now() at time zone 'utc')::date, null) t;
  return v_run_id;
end;
$$;

revoke all on function mdame.trigger_scheduled_run() from public, anon, authenticated;
grant execute on function mdame.trigger_scheduled_run() to mdame_engine;
grant execute on function mdame.trigger_scheduled_run() to service_role;
