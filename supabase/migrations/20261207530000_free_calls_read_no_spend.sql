-- free calls read no spend: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.check_spend_budget(p_dimension_id text, p_provider text, p_model text, p_estimate jsonb)
 RETURNS TABLE(fits boolean, period text, spent_usd numeric, budget_usd numeric, estimate_usd numeric, recheck_in_s integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
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
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_provider_usage(p_call_key text, p_provider text, p_model text, p_quantities jsonb, p_cached boolean, p_dimension_id text, p_run_id uuid DEFAULT NULL::uuid, p_unit_id uuid DEFAULT NULL::uuid, p_stage text DEFAULT NULL::text)
 RETURNS numeric
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_kind text;
  v_quantity jsonb;
  v_price numeric;
  v_total numeric := 0;
  v_inserted integer;
  v_new integer := 0;
begin
  if p_quantities is null or jsonb_typeof(p_quantities) <> 'object' or p_quantities = '{}'::jsonb then
    raise exception 'a recorded call names at least one unit kind and its quantity' using errcode = '22023';
  end if;
  if p_cached is null then
    raise exception 'a recorded call is cached or not' using errcode = '22023';
  end if;
  for v_kind, v_quantity in select key, value from jsonb_each(p_quantities) loop
    if jsonb_typeof(v_quantity) <> 'number' or v_quantity::numeric < 0 then
      raise exception 'the quantity of % must be a number of at least 0', left(v_kind, 40) using errcode = '22023';
    end if;
    v_price := mdame.spend_price(p_provider, p_model, v_kind);
    insert into mdame.provider_usage (call_key, provider, model, kind, quantity, usd_per_unit, usd, cached,
                                      dimension_id, run_id, unit_id, stage, recorded_at)
    values (p_call_key, p_provider, p_model, v_kind, v_quantity::numeric, v_price,
            case when p_cached then 0 else coalesce(v_price, 0) * v_quantity::numeric end, p_cached,
            p_dimension_id, p_run_id, p_unit_id, p_stage, mdame.engine_now())
    on conflict (call_key, kind) do nothing;
    get diagnostics v_inserted = row_count;
    v_new := v_new + v_inserted;
  end loop;
  -- The call's cost as recorded, this time or the first.
  select coalesce(sum(u.usd), 0) into v_total from mdame.provider_usage u where u.call_key = p_call_key;
  if v_new > 0 and not p_cached and p_dimension_id is not null then
    perform mdame.alert_on_spend_budget(p_dimension_id);
  end if;
  return v_total;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.spend_budget_state(p_dimension_id text, OUT daily_usd numeric, OUT monthly_usd numeric, OUT spent_today numeric, OUT spent_month numeric, OUT day_ends_at timestamp with time zone, OUT month_ends_at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET search_path TO ''
AS $function$
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
$function$
;

select mdame.restrict_function_privileges();
