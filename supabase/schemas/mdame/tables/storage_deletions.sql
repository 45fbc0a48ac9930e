-- The outbox of Storage objects housekeeping has let go (docs/reference/retention.md). Storage refuses
-- deletes from SQL, so mdame.housekeeping records each key here in the transaction that forgets
-- its row, and the pipeline's tick removes the object through the Storage API, then acknowledges
-- (mdame.ack_storage_deletion); a failure waits not_before (engine clock) and is tried again, so a
-- key is never forgotten before its object is gone.

create table mdame.storage_deletions (
  key text not null,
  kind text not null,
  queued_at timestamp with time zone not null default now(),
  not_before timestamp with time zone not null,
  attempts integer not null default 0,
  last_error text,
  constraint storage_deletions_pkey primary key (key),
  constraint storage_deletions_key_check check (((length(key) >= 1) and (length(key) <= 300))),
  constraint storage_deletions_kind_check check ((kind = any (array['scene'::text, 'render'::text, 'voice'::text]))),
  constraint storage_deletions_attempts_check check ((attempts >= 0))
);

create index storage_deletions_due_idx on mdame.storage_deletions (not_before);

alter table mdame.storage_deletions enable row level security;
