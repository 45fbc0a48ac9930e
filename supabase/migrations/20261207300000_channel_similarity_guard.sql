-- channel similarity guard: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

drop function if exists "mdame"."record_scene_plan"(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_scenes jsonb, p_visual jsonb, p_holder text);

  create table "mdame"."content_signatures" (
    "unit_id" uuid not null,
    "dimension_id" text not null,
    "title" text not null,
    "title_minhash" integer[] not null,
    "hook_minhash" integer[] not null,
    "script_minhash" integer[] not null,
    "scene_hashes" text[] not null,
    "created_at" timestamp with time zone not null default now()
      );

alter table "mdame"."content_signatures" enable row level security;

alter table "mdame"."dimensions" add column "similarity" jsonb not null default '{"threshold": 0.5, "compare_last": 60, "max_regenerations": 2}'::jsonb;

alter table "mdame"."work_units" add column "similarity" jsonb;

CREATE UNIQUE INDEX content_signatures_pkey ON mdame.content_signatures USING btree (unit_id);

CREATE INDEX content_signatures_recent_idx ON mdame.content_signatures USING btree (dimension_id, created_at DESC);

alter table "mdame"."content_signatures" add constraint "content_signatures_pkey" PRIMARY KEY using index "content_signatures_pkey";

alter table "mdame"."content_signatures" add constraint "content_signatures_dimension_id_fkey" FOREIGN KEY (dimension_id) REFERENCES mdame.dimensions(id) not valid;

alter table "mdame"."content_signatures" validate constraint "content_signatures_dimension_id_fkey";

alter table "mdame"."content_signatures" add constraint "content_signatures_minhash_size" CHECK (((cardinality(title_minhash) = 128) AND (cardinality(hook_minhash) = 128) AND (cardinality(script_minhash) = 128))) not valid;

alter table "mdame"."content_signatures" validate constraint "content_signatures_minhash_size";

alter table "mdame"."content_signatures" add constraint "content_signatures_scene_hashes_check" CHECK ((cardinality(scene_hashes) <= 20)) not valid;

alter table "mdame"."content_signatures" validate constraint "content_signatures_scene_hashes_check";

alter table "mdame"."content_signatures" add constraint "content_signatures_unit_id_fkey" FOREIGN KEY (unit_id) REFERENCES mdame.work_units(id) not valid;

alter table "mdame"."content_signatures" validate constraint "content_signatures_unit_id_fkey";

alter table "mdame"."dimensions" add constraint "dimensions_similarity_check" CHECK (((jsonb_typeof(similarity) = 'object'::text) AND ((similarity - ARRAY['threshold'::text, 'compare_last'::text, 'max_regenerations'::text]) = '{}'::jsonb) AND
CASE
    WHEN (jsonb_typeof((similarity -> 'threshold'::text)) = 'number'::text) THEN ((((similarity ->> 'threshold'::text))::numeric >= 0.05) AND (((similarity ->> 'threshold'::text))::numeric <= (1)::numeric))
    ELSE false
END AND
CASE
    WHEN ((jsonb_typeof((similarity -> 'compare_last'::text)) = 'number'::text) AND ((similarity ->> 'compare_last'::text) ~ '^[0-9]{1,3}$'::text)) THEN ((((similarity ->> 'compare_last'::text))::integer >= 1) AND (((similarity ->> 'compare_last'::text))::integer <= 500))
    ELSE false
END AND (COALESCE((similarity ->> 'max_regenerations'::text), ''::text) = ANY (ARRAY['0'::text, '1'::text, '2'::text, '3'::text])) AND (jsonb_typeof((similarity -> 'max_regenerations'::text)) = 'number'::text))) not valid;

alter table "mdame"."dimensions" validate constraint "dimensions_similarity_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.get_content_signatures(p_dimension_id text, p_unit_id uuid, p_limit integer)
 RETURNS TABLE(unit_id uuid, title text, signature jsonb)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  if p_limit is null or p_limit < 1 or p_limit > 500 then
    raise exception 'compare with 1 to 500 videos, not %', p_limit using errcode = 'MDS01';
  end if;
  return query
    select s.unit_id, s.title,
           jsonb_build_object('title', to_jsonb(s.title_minhash), 'hook', to_jsonb(s.hook_minhash),
                              'script', to_jsonb(s.script_minhash), 'scene_hashes', to_jsonb(s.scene_hashes))
      from mdame.content_signatures s
      join mdame.work_units u on u.id = s.unit_id
     where s.dimension_id = p_dimension_id
       and s.unit_id is distinct from p_unit_id
       and u.stage not in ('rejected', 'failed')
     order by s.created_at desc, s.unit_id
     limit p_limit;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_content_signature(p_unit_id uuid, p_signature jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_unit mdame.work_units;
begin
  if jsonb_typeof(p_signature->'title') is distinct from 'array' or jsonb_typeof(p_signature->'hook') is distinct from 'array'
     or jsonb_typeof(p_signature->'script') is distinct from 'array' or jsonb_typeof(p_signature->'scene_hashes') is distinct from 'array' then
    raise exception 'a content signature has title, hook, script and scene_hashes arrays' using errcode = 'MDS01';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id;
  insert into mdame.content_signatures as s (unit_id, dimension_id, title, title_minhash, hook_minhash, script_minhash, scene_hashes)
  values (p_unit_id, v_unit.dimension_id, coalesce(v_unit.script->>'title', ''),
          array(select x::integer from jsonb_array_elements_text(p_signature->'title') x),
          array(select x::integer from jsonb_array_elements_text(p_signature->'hook') x),
          array(select x::integer from jsonb_array_elements_text(p_signature->'script') x),
          array(select x from jsonb_array_elements_text(p_signature->'scene_hashes') x))
  on conflict (unit_id) do update
    set title = excluded.title, title_minhash = excluded.title_minhash, hook_minhash = excluded.hook_minhash,
        script_minhash = excluded.script_minhash, scene_hashes = excluded.scene_hashes, created_at = now();
  delete from mdame.content_signatures s
   where s.dimension_id = v_unit.dimension_id
     and s.unit_id in (select o.unit_id from mdame.content_signatures o where o.dimension_id = v_unit.dimension_id
                        order by o.created_at desc, o.unit_id offset 500);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_scene_plan(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_scenes jsonb, p_visual jsonb, p_holder text DEFAULT NULL::text, p_similarity jsonb DEFAULT NULL::jsonb)
 RETURNS mdame.work_units
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_scene jsonb;
  v_scene_id uuid;
  v_cached mdame.scene_cache;
  v_msg_id bigint;
  v_job jsonb;
  v_backends text[];
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'plan', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  v_unit := v_lock.unit;
  -- A plan without visuals (made before backend lists) is procedural only.
  v_backends := case when jsonb_typeof(p_visual->'visuals'->'backends') = 'array'
                     then array(select jsonb_array_elements_text(p_visual->'visuals'->'backends'))
                     else array['procedural'] end;

  for v_scene in select value from jsonb_array_elements(p_scenes) order by (value->>'index')::integer loop
    select c.* into v_cached from mdame.scene_cache c
     where c.scene_hash = v_scene->>'scene_hash' and c.backend_name = any (v_backends)
     order by array_position(v_backends, c.backend_name), c.created_at
     limit 1;
    insert into mdame.scenes (unit_id, scene_index, prompt, narration, first_word, duration_s, scene_hash, status, asset_key, cache_hit, backend)
    values (p_unit_id, (v_scene->>'index')::integer, v_scene->>'prompt', v_scene->>'narration', (v_scene->>'first_word')::integer,
            (v_scene->>'duration_s')::numeric, v_scene->>'scene_hash',
            case when v_cached.asset_key is null then 'queued' else 'ready' end, v_cached.asset_key, v_cached.asset_key is not null,
            v_cached.backend)
    returning id into v_scene_id;
    if v_cached.asset_key is null then
      v_job := jsonb_build_object(
        'run_id', v_unit.run_id, 'unit_id', p_unit_id, 'scene_id', v_scene_id, 'scene_index', (v_scene->>'index')::integer,
        'scene_hash', v_scene->>'scene_hash', 'dimension_id', v_unit.dimension_id, 'prompt', v_scene->>'prompt',
        'style', p_visual->'style', 'duration_s', (v_scene->>'duration_s')::numeric,
        'width', (p_visual->>'width')::integer, 'height', (p_visual->>'height')::integer, 'fps', (p_visual->>'fps')::integer);
      -- Absent fields stay absent: the job contract's defaults (no keywords, procedural) apply.
      if v_scene ? 'keywords' then
        v_job := v_job || jsonb_build_object('keywords', v_scene->'keywords');
      end if;
      if p_visual ? 'visuals' then
        v_job := v_job || jsonb_build_object('visuals', p_visual->'visuals');
      end if;
      v_job := v_job || jsonb_build_object('step_token', mdame.step_token(v_scene_id::text, mdame.stage_index('visual_generation'), v_job));
      select pgmq.send('visual_generation', v_job) into v_msg_id;
      update mdame.scenes set msg_id = v_msg_id, job = v_job where id = v_scene_id;
    end if;
  end loop;

  if p_similarity is not null then
    perform mdame.record_content_signature(p_unit_id, p_similarity->'signature');
    perform mdame.record_similarity_check(p_unit_id, p_similarity->'check', 'passed');
  end if;
  perform mdame.store_step_result(p_step_token, jsonb_build_object('scenes', p_scenes, 'visual', p_visual));
  v_unit := mdame.set_unit_stage(p_unit_id, 'media');
  perform mdame.enqueue_stage_task('voice', v_unit.run_id, p_unit_id);
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'plan', 'scenes_planned', jsonb_build_object(
    'scenes', jsonb_array_length(p_scenes),
    'cached', (select count(*) from mdame.scenes where unit_id = p_unit_id and cache_hit)));
  return v_unit;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_similarity_check(p_unit_id uuid, p_check jsonb, p_action text)
 RETURNS mdame.work_units
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_unit mdame.work_units;
begin
  if jsonb_typeof(p_check) is distinct from 'object' or p_action not in ('passed', 'regenerated', 'rejected') then
    raise exception 'a similarity check must be an object and its action passed, regenerated or rejected' using errcode = 'MDS01';
  end if;
  update mdame.work_units u
     set similarity = jsonb_build_object('checks', coalesce(u.similarity->'checks', '[]'::jsonb)
                        || jsonb_build_array(p_check || jsonb_build_object('action', p_action, 'checked_at', mdame.engine_now()))),
         updated_at = now()
   where u.id = p_unit_id
  returning * into v_unit;
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'plan', 'similarity_checked', jsonb_build_object(
    'action', p_action, 'combined', p_check->'closest'->'figures'->'combined', 'compared', p_check->'compared'));
  return v_unit;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_too_similar(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_check jsonb, p_max_regenerations integer, p_holder text DEFAULT NULL::text)
 RETURNS mdame.work_units
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_done integer;
  v_action text;
  v_closest jsonb := p_check->'closest';
begin
  if jsonb_typeof(p_check) is distinct from 'object' or p_check->>'verdict' is distinct from 'too_similar'
     or jsonb_typeof(v_closest) is distinct from 'object' or jsonb_typeof(v_closest->'figures'->'combined') is distinct from 'number' then
    raise exception 'a too_similar check names the closest video and its figures' using errcode = 'MDS01';
  end if;
  if p_max_regenerations is null or p_max_regenerations < 0 or p_max_regenerations > 3 then
    raise exception 'max_regenerations must be 0 to 3, not %', p_max_regenerations using errcode = 'MDS01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'plan', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  select count(*)::integer into v_done
    from jsonb_array_elements(coalesce((v_lock.unit).similarity->'checks', '[]'::jsonb)) c
   where c->>'action' = 'regenerated';
  v_action := case when v_done < p_max_regenerations then 'regenerated' else 'rejected' end;
  perform mdame.record_similarity_check(p_unit_id, p_check, v_action);
  perform mdame.store_step_result(p_step_token, jsonb_build_object('too_similar', p_check, 'action', v_action));
  perform pgmq.archive('stage_tasks', p_msg_id);
  if v_action = 'regenerated' then
    v_unit := mdame.set_unit_stage(p_unit_id, 'script');
    perform mdame.enqueue_stage_task('script', v_unit.run_id, p_unit_id);
    return v_unit;
  end if;
  v_unit := mdame.set_unit_stage(p_unit_id, 'rejected', format('too_similar: %s to "%s" (script %s, hook %s, title %s, scenes %s) after %s regeneration(s)',
    v_closest->'figures'->>'combined', left(v_closest->>'title', 90), v_closest->'figures'->>'script', v_closest->'figures'->>'hook',
    v_closest->'figures'->>'title', v_closest->'figures'->>'scenes', v_done));
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.enqueue_stage_task(p_stage text, p_run_id uuid, p_unit_id uuid, p_dimension_id text DEFAULT NULL::text)
 RETURNS bigint
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_owner text := coalesce(p_unit_id::text, p_run_id::text || ':' || p_dimension_id);
  v_message jsonb;
  v_msg_id bigint;
  v_first_vt timestamptz;
  v_regeneration integer;
begin
  select nullif(count(*), 0)::integer into v_regeneration
    from mdame.work_units u, jsonb_array_elements(coalesce(u.similarity->'checks', '[]'::jsonb)) c
   where u.id = p_unit_id and c->>'action' = 'regenerated';
  v_message := jsonb_strip_nulls(jsonb_build_object(
    'stage', p_stage, 'run_id', p_run_id, 'unit_id', p_unit_id, 'dimension_id', p_dimension_id, 'regeneration', v_regeneration));
  v_message := v_message || jsonb_build_object('step_token', mdame.step_token(v_owner, mdame.stage_index(p_stage), v_message));
  select q.vt into v_first_vt from pgmq.q_stage_tasks q order by q.vt limit 1;
  insert into pgmq.q_stage_tasks (vt, message) values (clock_timestamp(), v_message) returning msg_id into v_msg_id;
  if v_first_vt is null or v_first_vt > clock_timestamp() then
    perform mdame.wake_stage_runner(p_stage);
  end if;
  return v_msg_id;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.weekly_report(p_dimension_id text, p_week_start date)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_dimension mdame.dimensions;
  v_zone text;
  v_week date := date_trunc('week', p_week_start)::date;
  v_from timestamptz;
  v_to timestamptz;
  v_outcomes jsonb;
  v_daily jsonb;
  v_latency jsonb;
  v_cache jsonb;
  v_quota jsonb;
  v_videos jsonb;
  v_topics jsonb;
  v_similarity jsonb;
begin
  if p_week_start is null then
    raise exception 'a week start date is required' using errcode = '22023';
  end if;
  select * into v_dimension from mdame.dimensions where id = p_dimension_id;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  v_zone := coalesce(nullif(v_dimension.publishing->>'time_zone', ''), 'UTC');
  v_from := v_week::timestamp at time zone v_zone;
  v_to := (v_week + 7)::timestamp at time zone v_zone;

  -- Each unit's stage changes (the stage it left, when it left the one it entered), for the units of
  -- the dimension that changed stage within the week or the 30 days before it.
  with units as (
    select distinct e.unit_id
      from mdame.events e join mdame.work_units u on u.id = e.unit_id
     where e.kind = 'stage_entered' and u.dimension_id = p_dimension_id
       and e.created_at >= v_from - interval '30 days' and e.created_at < v_to
  ), transitions as (
    select e.unit_id, e.stage,
           lag(e.stage) over (partition by e.unit_id order by e.id) as previous,
           e.detail->>'error' as error, e.created_at as at,
           lead(e.created_at) over (partition by e.unit_id order by e.id) as left_at
      from mdame.events e
     where e.kind = 'stage_entered' and e.unit_id in (select unit_id from units)
  ), ends as (
    select t.*, (t.at at time zone v_zone)::date as day from transitions t
     where t.stage in ('published', 'rejected', 'failed') and t.at >= v_from and t.at < v_to
  )
  select jsonb_build_object(
           'published', (select count(*) from ends where stage = 'published'),
           'rejected', (select count(*) from ends where stage = 'rejected'),
           'failed', (select count(*) from ends where stage = 'failed'),
           'rejected_by_reason', coalesce((
             select jsonb_agg(jsonb_build_object('reason', r.reason, 'count', r.n) order by r.n desc, r.reason)
               from (select left(btrim(split_part(coalesce(x.error, 'no reason recorded'), ':', 1)), 120) as reason, count(*) as n
                       from ends x where x.stage = 'rejected' group by 1) r), '[]'::jsonb),
           'failed_by_stage', coalesce((
             select jsonb_agg(jsonb_build_object('stage', f.stage, 'count', f.n) order by f.n desc, f.stage)
               from (select coalesce(x.previous, 'unknown') as stage, count(*) as n
                       from ends x where x.stage = 'failed' group by 1) f), '[]'::jsonb)),
         (select jsonb_agg(jsonb_build_object(
                   'date', d.day,
                   'published', (select count(*) from ends x where x.stage = 'published' and x.day = d.day),
                   'rejected', (select count(*) from ends x where x.stage = 'rejected' and x.day = d.day),
                   'failed', (select count(*) from ends x where x.stage = 'failed' and x.day = d.day))
                 order by d.day)
            from (select (v_week + i) as day from generate_series(0, 6) i) d),
         (select coalesce(jsonb_agg(jsonb_build_object('stage', l.stage, 'samples', l.n, 'p50_s', l.p50, 'p95_s', l.p95)
                                    order by array_position(array['script', 'safety', 'plan', 'media', 'render', 'publish', 'deferred'], l.stage), l.stage), '[]'::jsonb)
            from (select x.stage, count(*) as n,
                         round(percentile_cont(0.5) within group (order by extract(epoch from x.left_at - x.at))::numeric, 1) as p50,
                         round(percentile_cont(0.95) within group (order by extract(epoch from x.left_at - x.at))::numeric, 1) as p95
                    from transitions x
                   where x.left_at is not null and x.left_at >= v_from and x.left_at < v_to
                     and x.stage not in ('published', 'rejected', 'failed')
                   group by x.stage) l)
    into v_outcomes, v_daily, v_latency;

  select jsonb_build_object(
           'scenes', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where s.cache_hit),
                                                'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where s.cache_hit)::numeric / count(*), 4) end)
                        from mdame.scenes s join mdame.work_units u on u.id = s.unit_id
                       where u.dimension_id = p_dimension_id and s.cache_hit is not null
                         and s.updated_at >= v_from and s.updated_at < v_to),
           'llm', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where (e.detail->>'hit')::boolean),
                                             'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where (e.detail->>'hit')::boolean)::numeric / count(*), 4) end)
                     from mdame.events e
                    where e.kind = 'cache_lookup' and e.detail->>'cache' = 'llm' and e.detail->>'dimension_id' = p_dimension_id
                      and e.created_at >= v_from and e.created_at < v_to),
           'tts', (select jsonb_build_object('lookups', count(*), 'hits', count(*) filter (where (e.detail->>'hit')::boolean),
                                             'hit_rate', case when count(*) = 0 then null else round(count(*) filter (where (e.detail->>'hit')::boolean)::numeric / count(*), 4) end)
                     from mdame.events e
                    where e.kind = 'cache_lookup' and e.detail->>'cache' = 'tts' and e.detail->>'dimension_id' = p_dimension_id
                      and e.created_at >= v_from and e.created_at < v_to))
    into v_cache;

  select jsonb_build_object(
           'youtube', coalesce((
             select jsonb_agg(jsonb_build_object('bucket', q.bucket, 'used', q.used, 'calls', q.calls) order by q.bucket)
               from (select l.bucket, sum(l.cost) as used, count(*) as calls
                       from mdame.quota_ledger l join mdame.dimension_accounts a on a.id = l.account_id
                      where a.dimension_id = p_dimension_id and l.entry = 'call' and l.status <> 'released'
                        and l.created_at >= v_from and l.created_at < v_to
                      group by l.bucket) q), '[]'::jsonb),
           'tiktok', coalesce((
             select jsonb_agg(jsonb_build_object('call_kind', c.call_kind, 'calls', c.calls) order by c.call_kind)
               from (select t.call_kind, count(*) as calls
                       from mdame.tiktok_calls t join mdame.dimension_accounts a on a.id = t.account_id
                      where a.dimension_id = p_dimension_id and t.created_at >= v_from and t.created_at < v_to
                      group by t.call_kind) c), '[]'::jsonb))
    into v_quota;

  select coalesce(jsonb_agg(jsonb_build_object('reason', r.reason, 'count', r.n) order by r.n desc, r.reason), '[]'::jsonb)
    into v_topics
    from (select t.reason, count(*) as n from mdame.rejected_topics t
           where t.dimension_id = p_dimension_id and t.created_at >= v_from and t.created_at < v_to
           group by t.reason) r;

  with latest as (
    select distinct on (va.publication_id) va.*, p.external_id, a.channel_handle, u.script->>'title' as title
      from mdame.video_analytics va
      join mdame.publications p on p.id = va.publication_id
      join mdame.work_units u on u.id = p.unit_id
      join mdame.dimension_accounts a on a.id = p.account_id
     where u.dimension_id = p_dimension_id and va.fetched_at < v_to
     order by va.publication_id, va.window_days desc, va.fetched_at desc
  ), week as (
    select jsonb_build_object(
             'publication_id', l.publication_id,
             'platform', l.platform,
             'title', coalesce(l.title, '(untitled)'),
             'url', mdame.external_url(l.platform, l.external_id, l.channel_handle),
             'window_days', l.window_days,
             'views', l.views,
             'engaged_views', l.engaged_views,
             'average_view_duration_s', l.average_view_duration_s,
             'average_view_percentage', l.average_view_percentage,
             'likes', l.likes,
             'comments', l.comments,
             'shares', l.shares) as video,
           l.platform, l.engaged_views, l.views, l.likes, l.comments, l.shares, l.average_view_percentage, l.publication_id
      from latest l
     where l.fetched_at >= v_from
  )
  select jsonb_build_object(
           'count', (select count(*) from week),
           'best_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views desc, w.views desc, w.publication_id limit 1),
           'worst_engaged', (select w.video from week w where w.engaged_views is not null order by w.engaged_views, w.views, w.publication_id limit 1),
           'best_retention', (select w.video from week w where w.average_view_percentage is not null
                               order by w.average_view_percentage desc, w.views desc, w.publication_id limit 1),
           'worst_retention', (select w.video from week w where w.average_view_percentage is not null
                                order by w.average_view_percentage, w.views, w.publication_id limit 1),
           'by_platform', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'platform', g.platform, 'videos', g.n, 'views', g.views, 'likes', g.likes,
                      'engaged_views', g.engaged_views, 'average_view_percentage', g.mean_view_percentage,
                      'comments', g.comments, 'shares', g.shares,
                      'most_viewed', (select w.video from week w where w.platform = g.platform order by w.views desc, w.publication_id limit 1),
                      'least_viewed', (select w.video from week w where w.platform = g.platform order by w.views, w.publication_id limit 1))
                    order by g.platform)
               from (select w.platform, count(*) as n, sum(w.views) as views, sum(w.likes) as likes,
                            sum(w.engaged_views) as engaged_views, round(avg(w.average_view_percentage), 2) as mean_view_percentage,
                            sum(w.comments) as comments, sum(w.shares) as shares
                       from week w group by w.platform) g), '[]'::jsonb))
    into v_videos;

  select jsonb_build_object(
           'checks', count(*),
           'passed', count(*) filter (where e.detail->>'action' = 'passed'),
           'regenerated', count(*) filter (where e.detail->>'action' = 'regenerated'),
           'rejected', count(*) filter (where e.detail->>'action' = 'rejected'),
           'median_combined', round((percentile_cont(0.5) within group (order by (e.detail->>'combined')::double precision))::numeric, 4),
           'max_combined', max((e.detail->>'combined')::numeric))
    into v_similarity
    from mdame.events e join mdame.work_units u on u.id = e.unit_id
   where e.kind = 'similarity_checked' and u.dimension_id = p_dimension_id and e.created_at >= v_from and e.created_at < v_to;

  return jsonb_build_object(
    'dimension_id', v_dimension.id,
    'display_name', v_dimension.display_name,
    'time_zone', v_zone,
    'week_start', v_week,
    'week_end', v_week + 6,
    'generated_at', mdame.engine_now(),
    'outcomes', v_outcomes,
    'topics_rejected', v_topics,
    'daily', v_daily,
    'stage_latency', v_latency,
    'cache', v_cache,
    'quota', v_quota,
    'videos', v_videos,
    'similarity', v_similarity);
end;
$function$
;

comment on function mdame.record_content_signature(uuid,jsonb) is 'internal: stores the guard''s signature of a unit the caller has locked';
comment on function mdame.record_similarity_check(uuid,jsonb,text) is 'internal: appends a channel-standing check to a unit the caller has locked';

update mdame.component_roles set rpcs = rpcs || array['get_content_signatures', 'record_too_similar']::text[] where role = 'mdame_engine';

select mdame.restrict_function_privileges();
