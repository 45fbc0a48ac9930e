-- The dimensions the scheduled trigger would start at p_at: active, their production start
-- (mdame.run_schedule) come on their own local date, and no cron run of this environment and local
-- date started for them yet, nor any run of that date with their current configuration. due_at is
-- the start it waits for. trigger_due_runs starts them; the watchdog reports those waiting long
-- after their start (a paused or failing mdame-scheduled-runs job, a refused environment).
-- A start that came before the dimension existed is not made up: it starts the next day.

create or replace function mdame.due_dimensions(p_at timestamp with time zone)
returns table(dimension_id text, local_date date, config_hash text, due_at timestamp with time zone)
language plpgsql
stable
set search_path = ''
as $$
declare
  v_env text;
begin
  select value into v_env from mdame.settings where key = 'env';
  return query
  select due.id, due.local_date, due.hash, due.due_at
    from (select d.id, mdame.local_run_date(d.publishing, p_at) as local_date, mdame.config_hash(mdame.dimension_config(d)) as hash,
                 ((p_at at time zone s.time_zone)::date + s.start_time) at time zone s.time_zone as due_at
            from mdame.dimensions d cross join lateral mdame.run_schedule(d.publishing) s
           where d.active and (p_at at time zone s.time_zone)::time >= s.start_time
             and d.created_at <= ((p_at at time zone s.time_zone)::date + s.start_time) at time zone s.time_zone) due
   where not exists (
     select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
      where r.env = v_env and r.run_date = due.local_date and rd.dimension_id = due.id
        and (r.trigger_kind = 'cron' or rd.config_hash = due.hash));
end;
$$;

comment on function mdame.due_dimensions(timestamp with time zone) is 'internal: the dimensions due to start at a time and not started (trigger_due_runs, the watchdog)';
