-- The oldest week due for the adaptive decisions that nobody is deciding (unclaimed, or claimed more
-- than 15 minutes ago without finishing), claimed now; null when there is none.

create or replace function mdame.claim_adaptation_week()
returns date
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_week date;
begin
  select w.week_start into v_week from mdame.adaptation_weeks w
   where w.finished_at is null and (w.claimed_at is null or w.claimed_at < mdame.engine_now() - interval '15 minutes')
   order by w.week_start
   limit 1
   for update skip locked;
  if v_week is null then
    return null;
  end if;
  update mdame.adaptation_weeks set claimed_at = mdame.engine_now() where week_start = v_week;
  return v_week;
end;
$$;
