-- due runs use local run date: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.trigger_due_runs(p_at timestamp with time zone)
 RETURNS TABLE(run_id uuid, status text, created boolean)
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
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
$function$
;

select mdame.restrict_function_privileges();
