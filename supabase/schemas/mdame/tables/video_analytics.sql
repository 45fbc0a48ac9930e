-- What a platform reported for one published video at one fetch window (about day 3 and day 7 after
-- publication): YouTube Analytics (its data lags 48-72 h) for a YouTube video; counts for the
-- others (record_counted_video_analytics): TikTok's video/query, Instagram's media insights, a
-- Facebook Reel's video insights. One row per publication and window; a repeated fetch of the same
-- window replaces its figures (fetched_at moves), so a fetch is idempotent. platform is the
-- publication's, copied by a trigger (mdame.video_analytics_platform). Engaged views, the view
-- percentage and the retention curve are YouTube's alone; comments and shares every platform's
-- but YouTube's here; reach Instagram's and Facebook's, saved Instagram's; the average view
-- duration YouTube's, Instagram's and Facebook's (TikTok reports no watch time).
create table mdame.video_analytics (
  id uuid not null default gen_random_uuid(),
  publication_id uuid not null,
  window_days integer not null,
  fetched_at timestamp with time zone not null,
  period_start date not null,
  period_end date not null,
  views bigint not null,
  engaged_views bigint,
  average_view_duration_s numeric,
  average_view_percentage numeric,
  likes bigint not null,
  retention jsonb,
  platform text not null,
  comments bigint,
  shares bigint,
  reach bigint,
  saved bigint,
  constraint video_analytics_pkey primary key (id),
  constraint video_analytics_publication_id_window_days_key unique (publication_id, window_days),
  constraint video_analytics_publication_id_fkey foreign key (publication_id) references mdame.publications(id),
  constraint video_analytics_window_days_check check ((window_days = any (array[3, 7]))),
  constraint video_analytics_period_check check ((period_end >= period_start)),
  constraint video_analytics_counts_check check (((views >= 0) and (engaged_views >= 0) and (likes >= 0))),
  constraint video_analytics_average_view_duration_s_check check ((average_view_duration_s >= (0)::numeric)),
  constraint video_analytics_average_view_percentage_check check ((average_view_percentage >= (0)::numeric)),
  constraint video_analytics_retention_check check ((jsonb_typeof(retention) = 'array'::text)),
  constraint video_analytics_engagement_check check (((comments >= 0) and (shares >= 0) and (reach >= 0) and (saved >= 0))),
  constraint video_analytics_youtube_figures_check check (((platform <> 'youtube'::text) or ((engaged_views is not null) and (average_view_duration_s is not null) and (average_view_percentage is not null) and (retention is not null))))
);

comment on table mdame.video_analytics is 'A published video''s figures at about day 3 and day 7: YouTube Analytics (views, engagedViews, averageViewDuration, averageViewPercentage, likes, the audienceWatchRatio curve) or a platform''s counts (views, likes, comments, shares, and where reported reach, saved, the average watch time).';
comment on column mdame.video_analytics.platform is 'The publication''s platform, which says which figures the row holds.';
comment on column mdame.video_analytics.retention is 'The retention curve: [{"ratio": elapsedVideoTimeRatio, "watch_ratio": audienceWatchRatio}], up to 100 points in ratio order.';

alter table mdame.video_analytics enable row level security;
