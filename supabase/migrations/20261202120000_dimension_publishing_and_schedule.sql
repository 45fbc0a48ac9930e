-- Per-dimension publishing settings (docs/distribution.md, "Publishing settings") and a daily
-- schedule per dimension: the one 06:00 UTC trigger (mdame-daily-run) becomes a check every minute
-- (mdame-scheduled-runs) that starts each dimension at its own local time. Existing dimensions take
-- the defaults, which keep their uploads as they were (Education, public, not for kids) and declare
-- the generated voice and pictures; with no time set a dimension still starts at 06:00 UTC.

-- A dimension's publishing settings are valid when every field is there with its type and bounds,
-- as shared/contracts/publishing.ts checks them: the time zone must be one this server knows.

create or replace function mdame.publishing_is_valid(p_publishing jsonb)
returns boolean
language sql
immutable security definer
set search_path = ''
as $$
  select coalesce(
    jsonb_typeof(p_publishing) = 'object'
    and p_publishing ?& array['category_id', 'privacy_status', 'time_zone', 'publish_time', 'run_time', 'made_for_kids',
                              'contains_synthetic_media', 'default_audio_language']
    and (p_publishing - array['category_id', 'privacy_status', 'time_zone', 'publish_time', 'run_time', 'made_for_kids',
                              'contains_synthetic_media', 'default_audio_language']) = '{}'::jsonb
    and jsonb_typeof(p_publishing->'category_id') = 'string' and p_publishing->>'category_id' ~ '^[0-9]{1,4}$'
    and jsonb_typeof(p_publishing->'privacy_status') = 'string' and p_publishing->>'privacy_status' in ('public', 'unlisted', 'private')
    and jsonb_typeof(p_publishing->'time_zone') = 'string'
    and exists (select 1 from pg_catalog.pg_timezone_names z where z.name = p_publishing->>'time_zone')
    and (jsonb_typeof(p_publishing->'publish_time') = 'null' or (jsonb_typeof(p_publishing->'publish_time') = 'string'
         and p_publishing->>'publish_time' ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'))
    and (jsonb_typeof(p_publishing->'run_time') = 'null' or (jsonb_typeof(p_publishing->'run_time') = 'string'
         and p_publishing->>'run_time' ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'))
    and jsonb_typeof(p_publishing->'made_for_kids') = 'boolean'
    and jsonb_typeof(p_publishing->'contains_synthetic_media') = 'boolean'
    and (jsonb_typeof(p_publishing->'default_audio_language') = 'null' or (jsonb_typeof(p_publishing->'default_audio_language') = 'string'
         and p_publishing->>'default_audio_language' ~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*$')),
    false)
$$;

alter table mdame.dimensions add column publishing jsonb not null default '{"run_time": null, "time_zone": "UTC", "category_id": "27", "publish_time": null, "made_for_kids": false, "privacy_status": "public", "default_audio_language": null, "contains_synthetic_media": true}'::jsonb;
alter table mdame.dimensions add constraint dimensions_publishing_check check (mdame.publishing_is_valid(publishing));
comment on column mdame.dimensions.publishing is 'Publishing settings: {category_id, privacy_status, time_zone, publish_time, run_time, made_for_kids, contains_synthetic_media, default_audio_language} (shared/contracts/publishing.ts).';

-- When a dimension's day's production starts, from its publishing settings (shared/contracts/publishing.ts
-- runStart): run_time in its time zone; else 240 minutes before publish_time there; else 06:00 UTC,
-- the old daily run.

create or replace function mdame.run_schedule(p_publishing jsonb)
returns table(time_zone text, start_time time without time zone)
language sql
immutable
set search_path = ''
as $$
  select case when p_publishing->>'run_time' is null and p_publishing->>'publish_time' is null then 'UTC'
              else p_publishing->>'time_zone' end,
         coalesce((p_publishing->>'run_time')::time, (p_publishing->>'publish_time')::time - interval '240 minutes', time '06:00');
$$;

comment on function mdame.run_schedule(jsonb) is 'internal: a dimension''s daily production start, read by trigger_due_runs';

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
      from (select d.id, (p_at at time zone s.time_zone)::date as local_date, mdame.config_hash(mdame.dimension_config(d)) as hash
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
                                                v_day.local_date, null, array(select jsonb_object_keys(v_day.hashes)), true);
  end loop;
end;
$$;

comment on function mdame.trigger_due_runs(timestamp with time zone) is 'internal: the scheduled trigger at a given time, called by trigger_scheduled_run';

-- The return type changes (the runs started, none when nothing is due), so the function is replaced.
drop function mdame.trigger_scheduled_run();

-- The scheduled trigger pg_cron calls every minute (mdame-scheduled-runs): starts the dimensions whose
-- production start has come today in their own time zone and which today has not started
-- (mdame.trigger_due_runs); returns the runs it started, none when nothing is due.

create or replace function mdame.trigger_scheduled_run()
returns table(run_id uuid, status text, created boolean)
language sql
security definer
set search_path = ''
as $$
  select * from mdame.trigger_due_runs(now());
$$;

do $$
begin
  if exists (select 1 from cron.job where jobname = 'mdame-daily-run') then
    perform cron.unschedule('mdame-daily-run');
  end if;
  if not exists (select 1 from cron.job where jobname = 'mdame-scheduled-runs') then
    perform cron.schedule('mdame-scheduled-runs', '* * * * *', 'select mdame.trigger_scheduled_run()');
  end if;
end
$$;

select mdame.restrict_function_privileges();
