-- Records one provider call: a row per unit kind in p_quantities ({"input_tokens": 812,
-- "output_tokens": 240}), each priced with the price in force (spend_price) unless the answer was
-- cached (cost 0). A call key already recorded changes nothing (a recording sent again counts
-- once). Then the dimension's 80 % and cap alerts are checked. Returns the call's cost in USD.

create or replace function mdame.record_provider_usage(p_call_key text, p_provider text, p_model text, p_quantities jsonb,
                                                       p_cached boolean, p_dimension_id text,
                                                       p_run_id uuid default null::uuid, p_unit_id uuid default null::uuid,
                                                       p_stage text default null::text)
returns numeric
language plpgsql
security definer
set search_path = ''
as $$
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
$$;
