-- What each YouTube Data API call costs and from which bucket: videos.insert takes one call from
-- the project's upload bucket; videos.batchGetStats its units from its own bucket (since 3 Jun
-- 2026); every other call takes its units from the shared units bucket, thumbnails.set (a Short's
-- custom thumbnail, since 3 Nov 2026) among them. The YouTube Analytics API's reports.query takes
-- one query from the project's own analytics bucket.
create table mdame.youtube_call_costs (
  call_kind text not null,
  bucket text not null,
  cost integer not null,
  constraint youtube_call_costs_pkey primary key (call_kind),
  constraint youtube_call_costs_bucket_check check ((bucket = any (array['uploads'::text, 'units'::text, 'analytics'::text, 'stats'::text]))),
  constraint youtube_call_costs_cost_check check ((cost > 0))
);

alter table mdame.youtube_call_costs enable row level security;

insert into mdame.youtube_call_costs (call_kind, bucket, cost) values
  ('videos.insert', 'uploads', 1),
  ('videos.list', 'units', 1),
  ('channels.list', 'units', 1),
  ('videoCategories.list', 'units', 1),
  ('videos.update', 'units', 50),
  ('thumbnails.set', 'units', 50),
  ('videos.batchGetStats', 'stats', 1),
  ('analytics.reports.query', 'analytics', 1)
on conflict do nothing;
