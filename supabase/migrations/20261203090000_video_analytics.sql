-- What YouTube Analytics reported for each published video at about day 3 and day 7. The fetch, the
-- weekly auditor and the adaptive engine read it.
create table mdame.video_analytics (
  id uuid not null default gen_random_uuid(),
  publication_id uuid not null,
  window_days integer not null,
  fetched_at timestamp with time zone not null,
  period_start date not null,
  period_end date not null,
  views bigint not null,
  engaged_views bigint not null,
  average_view_duration_s numeric not null,
  average_view_percentage numeric not null,
  likes bigint not null,
  retention jsonb not null,
  constraint video_analytics_pkey primary key (id),
  constraint video_analytics_publication_id_window_days_key unique (publication_id, window_days),
  constraint video_analytics_publication_id_fkey foreign key (publication_id) references mdame.publications(id),
  constraint video_analytics_window_days_check check ((window_days = any (array[3, 7]))),
  constraint video_analytics_period_check check ((period_end >= period_start)),
  constraint video_analytics_counts_check check (((views >= 0) and (engaged_views >= 0) and (likes >= 0))),
  constraint video_analytics_average_view_duration_s_check check ((average_view_duration_s >= (0)::numeric)),
  constraint video_analytics_average_view_percentage_check check ((average_view_percentage >= (0)::numeric)),
  constraint video_analytics_retention_check check ((jsonb_typeof(retention) = 'array'::text))
);

comment on table mdame.video_analytics is 'YouTube Analytics figures of a published video at about day 3 and day 7 (views, engagedViews, averageViewDuration, averageViewPercentage, likes, and the audienceWatchRatio curve).';
comment on column mdame.video_analytics.retention is 'The retention curve: [{"ratio": elapsedVideoTimeRatio, "watch_ratio": audienceWatchRatio}], up to 100 points in ratio order.';

alter table mdame.video_analytics enable row level security;
