-- Takes back the operator's price of a row: a seeded row returns to its default, a row the operator
-- added is removed. Returns the row as it now stands (null when removed); an unknown row is MDN01.

create or replace function mdame.reset_provider_price(p_provider text, p_model text, p_kind text)
returns mdame.provider_prices
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.provider_prices;
begin
  select * into v_row from mdame.provider_prices
   where provider = p_provider and model = p_model and kind = p_kind for update;
  if not found then
    raise exception 'no price for % % %', left(p_provider, 60), left(p_model, 120), left(p_kind, 40) using errcode = 'MDN01';
  end if;
  if v_row.default_usd_per_unit is null then
    delete from mdame.provider_prices where provider = p_provider and model = p_model and kind = p_kind;
    return null;
  end if;
  update mdame.provider_prices
     set usd_per_unit = default_usd_per_unit, source = 'default', updated_at = now()
   where provider = p_provider and model = p_model and kind = p_kind
  returning * into v_row;
  return v_row;
end;
$$;
