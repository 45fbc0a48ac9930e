-- The size of one of a Google project's daily YouTube buckets: uploads (videos.insert calls),
-- units (Data API units), stats (videos.batchGetStats units) or analytics (reports.query calls).
-- The one place a bucket's name maps to its column: the ledger's reservations and refusals and the
-- ops quota read it here.

create or replace function mdame.youtube_bucket_size(p_project mdame.youtube_projects, p_bucket text)
returns integer
language sql
immutable
set search_path = ''
as $$
  select case p_bucket when 'uploads' then p_project.upload_calls_per_day
                       when 'units' then p_project.api_units_per_day
                       when 'stats' then p_project.stats_units_per_day
                       when 'analytics' then p_project.analytics_queries_per_day end;
$$;

comment on function mdame.youtube_bucket_size(mdame.youtube_projects, text) is 'internal: the size of a Google project''s daily YouTube bucket by its name';
