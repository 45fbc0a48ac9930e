-- One row per post the engine makes through Meta's publishing APIs (an Instagram media_publish, a
-- Facebook Reel's finish), reserved before the post's first call, on the engine's clock: the
-- engine's side of the moving 24-hour windows Meta's publishing limits count. A publication holds
-- one row however often its upload resumes; a post that failed before Meta accepted anything gives
-- its row back (release_meta_post).
create table mdame.meta_posts (
  publication_id uuid not null,
  account_id uuid not null,
  reserved_at timestamp with time zone not null,
  constraint meta_posts_pkey primary key (publication_id),
  constraint meta_posts_publication_id_fkey foreign key (publication_id) references mdame.publications(id) on delete cascade,
  constraint meta_posts_account_id_fkey foreign key (account_id) references mdame.dimension_accounts(id) on delete cascade
);

create index meta_posts_window_idx on mdame.meta_posts (account_id, reserved_at);

alter table mdame.meta_posts enable row level security;
