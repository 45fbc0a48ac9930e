-- Extensions the engine needs. pg_cron runs the schedules (mdame/schedules.sql). pgmq holds the
-- queues: the real extension where the server has it (Supabase does); where it does not, the local
-- stack installs its pgmq-compatible SQL in schema pgmq before this file, and this file leaves it.

create extension if not exists pg_cron;

-- pgmq is here when its functions are; a schema named pgmq alone says nothing (supabase db reset
-- drops the extension and keeps the schema).
do $$
begin
  if not exists (select 1 from pg_extension where extname = 'pgmq')
     and to_regprocedure('pgmq.create(text)') is null then
    create extension pgmq;
  end if;
end
$$;
