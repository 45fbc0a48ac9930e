-- Each Instagram or Facebook account's publishing limit as the engine last knew it: Instagram's
-- content_publishing_limit (quota_total, and quota_usage: the posts Meta counts in the last 24
-- hours, from any app) read before each post; Facebook's documented 30 API-published Reels a Page
-- may make in a moving 24 hours, which Graph offers no call to read (quota_usage null). full_until
-- is set when Meta refused a post for its limit although the engine's count had room: the account
-- takes no post before then.
create table mdame.meta_publishing_limits (
  account_id uuid not null,
  quota_total integer not null,
  quota_usage integer,
  full_until timestamp with time zone,
  read_at timestamp with time zone not null,
  constraint meta_publishing_limits_pkey primary key (account_id),
  constraint meta_publishing_limits_quota_total_check check ((quota_total >= 0)),
  constraint meta_publishing_limits_quota_usage_check check ((quota_usage >= 0)),
  constraint meta_publishing_limits_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id) on delete cascade
);

alter table mdame.meta_publishing_limits enable row level security;
