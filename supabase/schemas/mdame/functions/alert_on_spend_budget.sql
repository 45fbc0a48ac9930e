-- Alerts the operator once per period and threshold when a dimension's spend reaches 80 % of a cap
-- (threshold 80) or the cap itself (threshold 100; also when a call was deferred because it would
-- pass the cap of p_blocked_period). The dedupe key names the dimension, the period and the
-- threshold, and an alert already raised under it is not raised again, however long the period.

create or replace function mdame.alert_on_spend_budget(p_dimension_id text, p_blocked_period text default null::text)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_state record;
  v_period text;
  v_cap numeric;
  v_spent numeric;
  v_label text;
  v_threshold integer;
  v_key text;
begin
  select * into v_state from mdame.spend_budget_state(p_dimension_id);
  foreach v_period in array array['day', 'month'] loop
    if v_period = 'day' then
      v_cap := v_state.daily_usd; v_spent := v_state.spent_today;
      v_label := to_char(mdame.engine_now() at time zone 'UTC', 'YYYY-MM-DD');
    else
      v_cap := v_state.monthly_usd; v_spent := v_state.spent_month;
      v_label := to_char(mdame.engine_now() at time zone 'UTC', 'YYYY-MM');
    end if;
    continue when v_cap is null;
    v_threshold := case when v_spent >= v_cap or p_blocked_period = v_period then 100
                        when v_spent >= 0.8 * v_cap then 80 end;
    continue when v_threshold is null;
    v_key := format('spend_budget:%s:%s:%s', p_dimension_id, v_label, v_threshold);
    continue when exists (select 1 from mdame.alerts a where a.dedupe_key = v_key);
    perform mdame.raise_alert('spend_budget', p_dimension_id, v_key,
      format('%s has spent %s of its %s budget of %s USD for %s (%s %%)%s', p_dimension_id, round(v_spent, 4),
             case v_period when 'day' then 'daily' else 'monthly' end, v_cap, v_label,
             case when v_cap > 0 then round(100 * v_spent / v_cap) else 100 end,
             case when v_threshold = 100 then ': paid work is deferred until the period ends or the budget is raised' else '' end),
      jsonb_build_object('period', v_label, 'spent_usd', round(v_spent, 6), 'budget_usd', v_cap, 'threshold', v_threshold,
                         'fix', format('mdame spend --dimension %s', p_dimension_id)));
  end loop;
end;
$$;

comment on function mdame.alert_on_spend_budget(text,text) is 'internal: the 80 % and cap alerts of record_provider_usage and check_spend_budget';
