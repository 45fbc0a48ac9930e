-- The Shorts thumbnail of each published YouTube video whose render has a cover image: one row per
-- publication, created (with its message on the thumbnail_sets queue) by a trigger when the
-- publication is confirmed published, so it is enqueued once whoever confirms it. The tick's drain
-- waits for YouTube's processing to succeed, then calls thumbnails.set; queued until the thumbnail
-- is set or the retries are spent (given_up). It never holds the publication back: the video is
-- public (or scheduled) before any of this starts.
create table mdame.thumbnail_sets (
  publication_id uuid not null,
  cover_key text not null,
  status text not null default 'queued'::text,
  msg_id bigint,
  attempts integer not null default 0,
  enqueued_at timestamp with time zone not null,
  last_error text,
  finished_at timestamp with time zone,
  constraint thumbnail_sets_pkey primary key (publication_id),
  constraint thumbnail_sets_publication_id_fkey foreign key (publication_id) references mdame.publications(id),
  constraint thumbnail_sets_status_check check ((status = any (array['queued'::text, 'set'::text, 'given_up'::text]))),
  constraint thumbnail_sets_attempts_check check ((attempts >= 0)),
  constraint thumbnail_sets_cover_key_check check ((cover_key <> ''::text))
);

create index thumbnail_sets_queued_idx on mdame.thumbnail_sets (publication_id) where (status = 'queued'::text);

comment on table mdame.thumbnail_sets is 'Each published YouTube video''s custom thumbnail (its render''s cover): enqueued once, then set or given up.';

alter table mdame.thumbnail_sets enable row level security;
