-- The operator's price for one unit of a provider's model (model '*': any model of the provider
-- without its own row), from now on: calls recorded before keep the price they were recorded at.
-- A seeded row keeps its default for reset_provider_price. Returns the row.

create or replace function mdame.set_provider_price(p_provider text, p_model text, p_kind text, p_usd_per_unit numeric)
returns mdame.provider_prices
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.provider_prices;
begin
  if p_usd_per_unit is null then
    raise exception 'a price is a number of USD per unit' using errcode = '22023';
  end if;
  insert into mdame.provider_prices as p (provider, model, kind, usd_per_unit, source, updated_at)
  values (p_provider, p_model, p_kind, p_usd_per_unit, 'operator', now())
  on conflict (provider, model, kind) do update
     set usd_per_unit = excluded.usd_per_unit, source = 'operator', updated_at = now()
  returning * into v_row;
  return v_row;
end;
$$;
