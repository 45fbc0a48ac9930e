-- What the watchdog (mdame.watchdog, pg_cron job mdame-watchdog) knows between its runs: one row a
-- check. Row `tick_liveness` holds the pipeline tick's liveness: ok_at is the end of the last tick
-- that succeeded (mdame.record_tick_ok, called by the Edge Function at the end of each tick), and
-- pending_since the first tick request posted since (mdame.post_tick_request), so a request that
-- pg_net has long forgotten still dates the failure. Every wake-up may write it, so the watchdog
-- only reads it (the tick check's failure is row `tick`). Row `heartbeat` records the last ping of
-- the outside monitor's URL. The other rows are failures the watchdog has seen: since when, what it
-- said, whether it paged for them and when it last did; a recovered check's row is deleted once its
-- recovery is raised. Real time (clock_timestamp), not the engine's clock: a stopped process stops
-- in real minutes.

create table mdame.watchdog_checks (
  name text not null,
  ok_at timestamp with time zone,
  pending_since timestamp with time zone,
  failing_since timestamp with time zone,
  detail text,
  alerted boolean not null default false,
  paged_at timestamp with time zone,
  updated_at timestamp with time zone not null default clock_timestamp(),
  constraint watchdog_checks_pkey primary key (name),
  constraint watchdog_checks_name_check check ((name ~ '^[a-z_]{1,20}(:[a-z0-9_-]{1,64})?$'))
);

comment on table mdame.watchdog_checks is 'The watchdog''s state: the tick''s liveness (row tick), the outside monitor''s last ping (row heartbeat), and each failing check with since when and whether it was alerted.';

alter table mdame.watchdog_checks enable row level security;

insert into mdame.watchdog_checks (name) values ('tick_liveness'), ('heartbeat') on conflict do nothing;
