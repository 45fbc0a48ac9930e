-- The engine's clock for YouTube's quota days: the transaction's now(), moved forward or back by
-- the offset recorded under settings key clock_offset, and only in a dev database (settings key
-- env = dev). The quota ledger, the channels' 24-hour upload windows and the drain of deferred
-- publications read it, so the soak's accelerated days pass YouTube's Pacific midnights as real
-- days do. In any other environment the offset is ignored and the clock is now().

create or replace function mdame.engine_now()
returns timestamp with time zone
language sql
stable security definer
set search_path = ''
as $$
  select now() + coalesce((select o.value::interval from mdame.settings o
                            where o.key = 'clock_offset'
                              and exists (select 1 from mdame.settings e where e.key = 'env' and e.value = 'dev')),
                          interval '0');
$$;
