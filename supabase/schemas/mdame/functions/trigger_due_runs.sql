-- The scheduled trigger at p_at: each active dimension whose production start (mdame.run_schedule)
-- has come on its own local date, and which no cron run of this environment and local date has
-- started yet, nor any run of that date with its current configuration, is started. Dimensions due
-- on the same local date start in one run, keyed by sha256(env:date:cron:{dimension: config hash})
-- like every trigger. A repeat finds them started; a missed tick is made up at the next one the
-- same local day; a start time a spring-forward day skips comes with the first local time after it,
-- one a fall-back day repeats starts at its first occurrence. A dimension created after its start
-- time starts the next day.

create or replace function mdame.trigger_due_runs(p_at timestamp with time zone)
returns table(run_id uuid, status text, created boolean)
language plpgsql
set search_path = ''
as $$
declare
  v_env text;
  v_day record;
begin
  select value into v_env from mdame.settings where key = 'env';
  perform mdame.assert_environment(v_env);
  -- The lock trigger_run takes: a manual trigger and this one see each other's runs.
  perform pg_advisory_xact_lock(hashtextextended('mdame.trigger_run:' || v_env, 0));

  for v_day in
    select due.local_date, jsonb_object_agg(due.id, due.hash) as hashes
      from (select d.id, mdame.local_run_date(d.publishing, p_at) as local_date, mdame.config_hash(mdame.dimension_config(d)) as hash
              from mdame.dimensions d cross join lateral mdame.run_schedule(d.publishing) s
             where d.active and (p_at at time zone s.time_zone)::time >= s.start_time
               -- A start that came before the dimension existed is not made up: it starts the next day.
               and d.created_at <= ((p_at at time zone s.time_zone)::date + s.start_time) at time zone s.time_zone) due
     where not exists (
       select 1 from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
        where r.env = v_env and r.run_date = due.local_date and rd.dimension_id = due.id
          and (r.trigger_kind = 'cron' or rd.config_hash = due.hash))
     group by due.local_date
     order by due.local_date
  loop
    return query select * from mdame.start_run(mdame.run_key(v_env, v_day.local_date, 'cron', v_day.hashes), v_env, 'cron',
                                                v_day.local_date, null, array(select jsonb_object_keys(v_day.hashes)));
  end loop;
end;
$$;

comment on function mdame.trigger_due_runs(timestamp with time zone) is 'internal: the scheduled trigger at a given time, called by trigger_scheduled_run';
