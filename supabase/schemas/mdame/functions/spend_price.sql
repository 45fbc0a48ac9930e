-- The price in force for one unit of a provider's model: the model's own row, else the provider's
-- '*' row; null when neither exists (the call is recorded at cost 0 and shows as unpriced).

create or replace function mdame.spend_price(p_provider text, p_model text, p_kind text)
returns numeric
language sql
stable
set search_path = ''
as $$
  select p.usd_per_unit from mdame.provider_prices p
   where p.provider = p_provider and p.kind = p_kind and p.model in (p_model, '*')
   order by (p.model = '*') limit 1;
$$;

comment on function mdame.spend_price(text,text,text) is 'internal: the price lookup of record_provider_usage and check_spend_budget';
