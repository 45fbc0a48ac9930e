-- The YouTube quota day an instant falls in: YouTube resets both buckets at midnight
-- America/Los_Angeles, so the day is the Pacific calendar date (DST-aware: 07:00 UTC in summer,
-- 08:00 UTC in winter).

create or replace function mdame.youtube_quota_day(p_at timestamp with time zone default now())
returns date
language sql
stable security definer
set search_path = ''
as $$
  select (p_at at time zone 'America/Los_Angeles')::date;
$$;
