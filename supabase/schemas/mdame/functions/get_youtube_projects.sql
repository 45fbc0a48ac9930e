-- The Google projects with their buckets and what is planned on them: the YouTube accounts holding
-- credentials connected through each (all, and the active ones), and the uploads a day those
-- active accounts are planned to make (each active dimension's daily_limit, once per account: every
-- account of a dimension uploads each of its videos), against upload_calls_per_day; and the upload
-- calls charged today (the current Pacific quota day). Named projects first, by name. PL/pgSQL: the
-- declared schema creates it before youtube_quota_day, which a SQL body would need to exist.

create or replace function mdame.get_youtube_projects()
returns table(oauth_client_id text, name text, client_secret_enc text, upload_calls_per_day integer, api_units_per_day integer, analytics_queries_per_day integer, stats_units_per_day integer, accounts integer, active_accounts integer, planned_uploads_per_day integer, uploads_today integer, created_at timestamp with time zone)
language plpgsql
stable security definer
set search_path = ''
as $$
begin
  return query
  select p.oauth_client_id, p.name, p.client_secret_enc, p.upload_calls_per_day, p.api_units_per_day, p.analytics_queries_per_day, p.stats_units_per_day,
         (select count(*)::integer from mdame.dimension_accounts a
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null),
         (select count(*)::integer from mdame.dimension_accounts a
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null and a.active),
         (select coalesce(sum(d.daily_limit), 0)::integer
            from mdame.dimension_accounts a join mdame.dimensions d on d.id = a.dimension_id
           where a.platform = 'youtube' and a.oauth_client_id = p.oauth_client_id and a.credentials_enc is not null and a.active and d.active),
         (select coalesce(sum(l.cost), 0)::integer from mdame.quota_ledger l
           where l.oauth_client_id = p.oauth_client_id and l.bucket = 'uploads' and l.status <> 'released'
             and l.quota_day = mdame.youtube_quota_day(mdame.engine_now())),
         p.created_at
    from mdame.youtube_projects p
   order by p.name is null, p.name, p.oauth_client_id;
end;
$$;
