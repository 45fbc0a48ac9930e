-- Where a dimension stands against its budget (dimensions.budget) on the engine's clock, in UTC
-- periods: what it spent today and this month, its caps, and when each period ends. A dimension
-- without a budget has null caps and its spend is not summed (0): nothing compares with it.

create or replace function mdame.spend_budget_state(p_dimension_id text,
                                                    out daily_usd numeric, out monthly_usd numeric,
                                                    out spent_today numeric, out spent_month numeric,
                                                    out day_ends_at timestamp with time zone, out month_ends_at timestamp with time zone)
returns record
language plpgsql
stable
set search_path = ''
as $$
declare
  v_now timestamp with time zone := mdame.engine_now();
  v_day timestamp with time zone := date_trunc('day', v_now, 'UTC');
  v_month timestamp with time zone := date_trunc('month', v_now, 'UTC');
  v_budget jsonb;
begin
  select d.budget into v_budget from mdame.dimensions d where d.id = p_dimension_id;
  daily_usd := (v_budget->>'daily_usd')::numeric;
  monthly_usd := (v_budget->>'monthly_usd')::numeric;
  day_ends_at := v_day + interval '1 day';
  month_ends_at := (date_trunc('month', v_now at time zone 'UTC') + interval '1 month') at time zone 'UTC';
  spent_today := 0;
  spent_month := 0;
  if daily_usd is null and monthly_usd is null then
    return;
  end if;
  select coalesce(sum(u.usd) filter (where u.recorded_at >= v_day), 0), coalesce(sum(u.usd), 0)
    into spent_today, spent_month
    from mdame.provider_usage u
   where u.dimension_id = p_dimension_id and u.recorded_at >= v_month;
end;
$$;

comment on function mdame.spend_budget_state(text) is 'internal: a dimension''s spend against its caps, for check_spend_budget and record_provider_usage';
