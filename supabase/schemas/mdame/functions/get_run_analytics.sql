-- The figures fetched for a run's published videos (YouTube Analytics', TikTok's): one row per publication and
-- window fetched, in unit and window order (none when nothing was fetched yet). MDN01 for a run
-- that does not exist, as every run route answers it (404).

create or replace function mdame.get_run_analytics(p_run_id uuid)
returns table(unit_id uuid, publication_id uuid, platform text, external_id text, channel_handle text, window_days integer,
              views bigint, engaged_views bigint, average_view_percentage numeric, average_view_duration_s numeric,
              likes bigint, comments bigint, shares bigint, fetched_at timestamp with time zone)
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  if not exists (select 1 from mdame.pipeline_runs r where r.id = p_run_id) then
    raise exception 'no run %', p_run_id using errcode = 'MDN01';
  end if;
  return query
    select u.id, p.id, p.platform, p.external_id, a.channel_handle, v.window_days, v.views, v.engaged_views, v.average_view_percentage,
           v.average_view_duration_s, v.likes, v.comments, v.shares, v.fetched_at
      from mdame.work_units u
      join mdame.publications p on p.unit_id = u.id
      join mdame.dimension_accounts a on a.id = p.account_id
      join mdame.video_analytics v on v.publication_id = p.id
     where u.run_id = p_run_id
     order by u.created_at, u.id, p.id, v.window_days;
end;
$$;
