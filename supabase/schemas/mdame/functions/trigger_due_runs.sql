-- The scheduled trigger at p_at: each dimension due then (mdame.due_dimensions: active, its
-- production start come on its own local date, and no cron run of this environment and local date
-- started yet, nor any run of that date with its current configuration) is started. Dimensions due
-- on the same local date start in one run, keyed by sha256(env:date:cron:{dimension: config hash})
-- like every trigger. A repeat finds them started; a missed tick is made up at the next one the
-- same local day; a start time a spring-forward day skips comes with the first local time after it,
-- one a fall-back day repeats starts at its first occurrence.

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
    select due.local_date, jsonb_object_agg(due.dimension_id, due.config_hash) as hashes
      from mdame.due_dimensions(p_at) due
     group by due.local_date
     order by due.local_date
  loop
    return query select * from mdame.start_run(mdame.run_key(v_env, v_day.local_date, 'cron', v_day.hashes), v_env, 'cron',
                                                v_day.local_date, null, array(select jsonb_object_keys(v_day.hashes)));
  end loop;
end;
$$;

comment on function mdame.trigger_due_runs(timestamp with time zone) is 'internal: the scheduled trigger at a given time, called by trigger_scheduled_run';
