-- The price table as `mdame prices list` shows it: every row, the operator's overrides with the
-- default they replace.

create or replace function mdame.list_provider_prices()
returns setof mdame.provider_prices
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.provider_prices order by provider, model, kind;
$$;
