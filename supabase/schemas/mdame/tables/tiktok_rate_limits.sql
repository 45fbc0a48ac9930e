-- TikTok's per-token rate limits, as documented: of the Content Posting API, 6 video.init requests a
-- minute, 20 creator_info/query and 30 status/fetch requests a minute; of the Display API, 600
-- video/query requests a minute (the closed loop's figures). Each account has its own
-- token, so the limits are per account. A raised limit is changed here.
create table mdame.tiktok_rate_limits (
  call_kind text not null,
  calls integer not null,
  per_seconds integer not null,
  constraint tiktok_rate_limits_pkey primary key (call_kind),
  constraint tiktok_rate_limits_calls_check check ((calls > 0)),
  constraint tiktok_rate_limits_per_seconds_check check ((per_seconds > 0))
);

insert into mdame.tiktok_rate_limits (call_kind, calls, per_seconds) values
  ('video.init', 6, 60),
  ('creator_info.query', 20, 60),
  ('status.fetch', 30, 60),
  ('video.query', 600, 60)
on conflict do nothing;

alter table mdame.tiktok_rate_limits enable row level security;
