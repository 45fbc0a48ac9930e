-- When a quota day's buckets fill up again: the next midnight in America/Los_Angeles, as an
-- instant (a DST change inside the day moves it by the hour the clocks moved).

create or replace function mdame.youtube_quota_resets_at(p_day date)
returns timestamp with time zone
language sql
stable security definer
set search_path = ''
as $$
  select ((p_day + 1)::timestamp without time zone) at time zone 'America/Los_Angeles';
$$;
