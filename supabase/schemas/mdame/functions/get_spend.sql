-- What was spent in a calendar month (UTC; p_month any day of it, null: this month on the engine's
-- clock), per dimension, provider, model and unit kind, optionally for one dimension: the calls
-- (distinct call keys), how many were answered from a cache, the quantity and the cost in USD. Calls
-- made for no dimension (dimension_id null) are their own group.

create or replace function mdame.get_spend(p_dimension_id text default null::text, p_month date default null::date)
returns table(dimension_id text, provider text, model text, kind text, calls bigint, cached_calls bigint, quantity numeric, usd numeric)
language sql
stable security definer
set search_path = ''
as $$
  with bounds as (
    select (date_trunc('month', coalesce(p_month::timestamp, mdame.engine_now() at time zone 'UTC'))) at time zone 'UTC' as starts
  )
  select u.dimension_id, u.provider, u.model, u.kind,
         count(distinct u.call_key), count(distinct u.call_key) filter (where u.cached), sum(u.quantity), sum(u.usd)
    from mdame.provider_usage u, bounds b
   where u.recorded_at >= b.starts and u.recorded_at < b.starts + interval '1 month'
     and (p_dimension_id is null or u.dimension_id = p_dimension_id)
   group by u.dimension_id, u.provider, u.model, u.kind
   order by u.dimension_id nulls last, u.provider, u.model, u.kind;
$$;
