-- Whether a dimension's next paid call fits its budget: p_estimate names the call's expected units
-- ({"input_tokens": 1200, "output_tokens": 2048}), priced like record_provider_usage prices them.
-- A call that would take the day's or the month's spend past its cap does not fit: the answer names
-- that period, the spend and cap, and in how many seconds to look again (recheck_in_s: until the period's end, or sooner,
-- settings key spend_budget_recheck, default 15 minutes, so a raised budget resumes the work), and
-- the cap alert is raised. A dimension without a budget, and a call that costs nothing, always fit.

create or replace function mdame.check_spend_budget(p_dimension_id text, p_provider text, p_model text, p_estimate jsonb)
returns table(fits boolean, period text, spent_usd numeric, budget_usd numeric, estimate_usd numeric, recheck_in_s integer)
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_state record;
  v_estimate numeric := 0;
  v_kind text;
  v_quantity jsonb;
  v_recheck interval := mdame.setting_interval('spend_budget_recheck', interval '15 minutes');
begin
  if p_estimate is null or jsonb_typeof(p_estimate) <> 'object' then
    raise exception 'an estimate names unit kinds and their quantities' using errcode = '22023';
  end if;
  for v_kind, v_quantity in select key, value from jsonb_each(p_estimate) loop
    if jsonb_typeof(v_quantity) <> 'number' or v_quantity::numeric < 0 then
      raise exception 'the estimated quantity of % must be a number of at least 0', left(v_kind, 40) using errcode = '22023';
    end if;
    v_estimate := v_estimate + coalesce(mdame.spend_price(p_provider, p_model, v_kind), 0) * v_quantity::numeric;
  end loop;
  estimate_usd := v_estimate;
  -- A call that costs nothing fits without reading the spend.
  if v_estimate = 0 then
    fits := true;
    return next;
    return;
  end if;
  select * into v_state from mdame.spend_budget_state(p_dimension_id);
  if v_state.daily_usd is not null and v_state.spent_today + v_estimate > v_state.daily_usd then
    fits := false; period := 'day'; spent_usd := v_state.spent_today; budget_usd := v_state.daily_usd;
    recheck_in_s := greatest(1, ceil(extract(epoch from least(v_state.day_ends_at - mdame.engine_now(), v_recheck)))::integer);
  elsif v_state.monthly_usd is not null and v_state.spent_month + v_estimate > v_state.monthly_usd then
    fits := false; period := 'month'; spent_usd := v_state.spent_month; budget_usd := v_state.monthly_usd;
    recheck_in_s := greatest(1, ceil(extract(epoch from least(v_state.month_ends_at - mdame.engine_now(), v_recheck)))::integer);
  else
    fits := true; period := null; spent_usd := v_state.spent_today; budget_usd := v_state.daily_usd;
    recheck_in_s := null;
    return next;
    return;
  end if;
  perform mdame.alert_on_spend_budget(p_dimension_id, period);
  return next;
end;
$$;
