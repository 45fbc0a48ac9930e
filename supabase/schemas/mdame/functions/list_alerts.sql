-- The most recent alerts for the operator (`mdame alerts`): newest raised first, with their
-- delivery state.

create or replace function mdame.list_alerts(p_limit integer default 50)
returns setof mdame.alerts
language sql
stable security definer
set search_path = ''
as $$
  select * from mdame.alerts order by last_raised_at desc, id limit greatest(1, least(coalesce(p_limit, 50), 500));
$$;
