-- The Sunday job (schedules.sql): marks the week ending now due for the adaptive decisions and
-- wakes the runner, whose tick claims it (mdame.claim_adaptation_week). Marking it again changes nothing.

create or replace function mdame.mark_adaptation_week_due()
returns date
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_week date := date_trunc('week', mdame.engine_now() at time zone 'UTC')::date;
begin
  insert into mdame.adaptation_weeks (week_start, due_at) values (v_week, mdame.engine_now())
  on conflict (week_start) do nothing;
  perform mdame.wake_stage_runner('adapt');
  return v_week;
end;
$$;
