-- Extensions the engine needs. pg_cron runs the schedules (mdame/schedules.sql). pgmq holds the
-- queues: the real extension where the server has it (Supabase does); where it does not, the local
-- stack installs its pgmq-compatible SQL in schema pgmq before this file, and this file leaves it.

create extension if not exists pg_cron;

do $$
begin
  if not exists (select 1 from pg_namespace where nspname = 'pgmq') then
    create extension pgmq;
  end if;
end
$$;
