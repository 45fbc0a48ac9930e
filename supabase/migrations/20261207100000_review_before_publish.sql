-- review before publish: what supabase/schemas declares and the migrations before this one do not
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

alter table "mdame"."alerts" drop constraint "alerts_kind_check";

alter table "mdame"."work_units" drop constraint "work_units_stage_check";

  create table "mdame"."unit_reviews" (
    "unit_id" uuid not null,
    "run_id" uuid not null,
    "dimension_id" text not null,
    "requested_at" timestamp with time zone not null,
    "expires_at" timestamp with time zone not null,
    "on_expiry" text not null,
    "decision" text,
    "decided_by" text,
    "decided_at" timestamp with time zone,
    "reason" text,
    "edits" jsonb
      );

alter table "mdame"."unit_reviews" enable row level security;

alter table "mdame"."dimensions" add column "review" jsonb;

CREATE INDEX unit_reviews_decided_idx ON mdame.unit_reviews USING btree (dimension_id, decided_at) WHERE (decision IS NOT NULL);

CREATE INDEX unit_reviews_pending_idx ON mdame.unit_reviews USING btree (expires_at) WHERE (decision IS NULL);

CREATE UNIQUE INDEX unit_reviews_pkey ON mdame.unit_reviews USING btree (unit_id);

alter table "mdame"."unit_reviews" add constraint "unit_reviews_pkey" PRIMARY KEY using index "unit_reviews_pkey";

alter table "mdame"."dimensions" add constraint "dimensions_review_check" CHECK (((review IS NULL) OR ((jsonb_typeof(review) = 'object'::text) AND ((review - ARRAY['required'::text, 'expires_after'::text, 'on_expiry'::text]) = '{}'::jsonb) AND (COALESCE(jsonb_typeof((review -> 'required'::text)), 'boolean'::text) = 'boolean'::text) AND (COALESCE((review ->> 'on_expiry'::text), 'reject'::text) = ANY (ARRAY['reject'::text, 'publish'::text])) AND
CASE
    WHEN (NOT (review ? 'expires_after'::text)) THEN true
    WHEN ((jsonb_typeof((review -> 'expires_after'::text)) = 'string'::text) AND ((review ->> 'expires_after'::text) ~ '^[1-9][0-9]{0,3}[mhd]$'::text)) THEN ((((review ->> 'expires_after'::text))::interval >= '00:10:00'::interval) AND (((review ->> 'expires_after'::text))::interval <= '30 days'::interval))
    ELSE false
END))) not valid;

alter table "mdame"."dimensions" validate constraint "dimensions_review_check";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_decided_by_check" CHECK (((decided_by IS NULL) OR (decided_by = ANY (ARRAY['operator'::text, 'expiry'::text])))) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_decided_by_check";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_decided_check" CHECK ((((decision IS NULL) AND (decided_by IS NULL) AND (decided_at IS NULL)) OR ((decision IS NOT NULL) AND (decided_by IS NOT NULL) AND (decided_at IS NOT NULL)))) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_decided_check";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_decision_check" CHECK (((decision IS NULL) OR (decision = ANY (ARRAY['approved'::text, 'rejected'::text])))) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_decision_check";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_dimension_id_fkey" FOREIGN KEY (dimension_id) REFERENCES mdame.dimensions(id) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_dimension_id_fkey";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_edits_check" CHECK (((edits IS NULL) OR (jsonb_typeof(edits) = 'object'::text))) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_edits_check";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_on_expiry_check" CHECK ((on_expiry = ANY (ARRAY['reject'::text, 'publish'::text]))) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_on_expiry_check";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_reason_check" CHECK (((reason IS NULL) OR ((length(reason) >= 1) AND (length(reason) <= 500)))) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_reason_check";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_run_id_fkey" FOREIGN KEY (run_id) REFERENCES mdame.pipeline_runs(id) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_run_id_fkey";

alter table "mdame"."unit_reviews" add constraint "unit_reviews_unit_id_fkey" FOREIGN KEY (unit_id) REFERENCES mdame.work_units(id) not valid;

alter table "mdame"."unit_reviews" validate constraint "unit_reviews_unit_id_fkey";

alter table "mdame"."alerts" add constraint "alerts_kind_check" CHECK ((kind = ANY (ARRAY['run_failed'::text, 'dead_letter'::text, 'needs_reconnect'::text, 'quota_deferral_stale'::text, 'quality_gate_failed'::text, 'component_restarting'::text, 'weekly_report'::text, 'engine_stopped'::text, 'engine_recovered'::text, 'workers_absent'::text, 'upload_locked'::text, 'quota_bucket_high'::text, 'review_waiting'::text]))) not valid;

alter table "mdame"."alerts" validate constraint "alerts_kind_check";

alter table "mdame"."work_units" add constraint "work_units_stage_check" CHECK ((stage = ANY (ARRAY['script'::text, 'safety'::text, 'plan'::text, 'media'::text, 'render'::text, 'awaiting_review'::text, 'publish'::text, 'deferred'::text, 'published'::text, 'rejected'::text, 'failed'::text]))) not valid;

alter table "mdame"."work_units" validate constraint "work_units_stage_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.approve_review(p_unit_id uuid, p_title text DEFAULT NULL::text, p_description text DEFAULT NULL::text, p_decided_by text DEFAULT 'operator'::text)
 RETURNS mdame.unit_reviews
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_unit mdame.work_units;
  v_review mdame.unit_reviews;
  v_edits jsonb;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  select * into v_review from mdame.unit_reviews where unit_id = p_unit_id for update;
  if not found then
    raise exception 'work unit % was never sent for review', p_unit_id using errcode = 'MDN01';
  end if;
  if v_review.decision = 'approved' then
    return v_review;
  end if;
  if v_review.decision = 'rejected' then
    raise exception 'the review of work unit % was rejected (%)', p_unit_id, v_review.reason using errcode = 'MDS01';
  end if;
  if v_unit.stage <> 'awaiting_review' then
    raise exception 'work unit % is at stage % and awaits no review', p_unit_id, v_unit.stage using errcode = 'MDS01';
  end if;
  if p_decided_by is null or p_decided_by not in ('operator', 'expiry') then
    raise exception 'a review is decided by operator or expiry, not %', coalesce(p_decided_by, 'null') using errcode = '22023';
  end if;
  if (p_title is not null and btrim(p_title) = '') or (p_description is not null and btrim(p_description) = '') then
    raise exception 'an edited title or description must not be empty' using errcode = '22023';
  end if;

  v_edits := jsonb_strip_nulls(jsonb_build_object(
    'title', case when p_title is distinct from v_unit.script->>'title' and p_title is not null then v_unit.script->'title' end,
    'description', case when p_description is distinct from v_unit.script->>'description' and p_description is not null then v_unit.script->'description' end));
  if v_edits <> '{}'::jsonb then
    update mdame.work_units
       set script = script || jsonb_strip_nulls(jsonb_build_object('title', p_title, 'description', p_description))
     where id = p_unit_id;
  end if;
  update mdame.unit_reviews
     set decision = 'approved', decided_by = p_decided_by, decided_at = mdame.engine_now(),
         edits = nullif(v_edits, '{}'::jsonb)
   where unit_id = p_unit_id
  returning * into v_review;
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'awaiting_review', 'review_approved',
    jsonb_build_object('decided_by', p_decided_by, 'edited', coalesce((select array_agg(k) from jsonb_object_keys(v_edits) k), '{}')));
  perform mdame.set_unit_stage(p_unit_id, 'publish');
  perform mdame.enqueue_stage_task('publish', v_unit.run_id, p_unit_id);
  return v_review;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.expire_reviews()
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_due record;
  v_published integer := 0;
  v_rejected integer := 0;
begin
  for v_due in
    select r.unit_id, r.on_expiry, r.requested_at, r.expires_at
      from mdame.unit_reviews r
      join mdame.work_units u on u.id = r.unit_id
     where r.decision is null and r.expires_at <= mdame.engine_now() and u.stage = 'awaiting_review'
     order by r.expires_at
     limit 1000
     for update of u skip locked
  loop
    if v_due.on_expiry = 'publish' then
      perform mdame.approve_review(v_due.unit_id, null, null, 'expiry');
      v_published := v_published + 1;
    else
      perform mdame.reject_review(v_due.unit_id,
        format('expired: not reviewed within %s', v_due.expires_at - v_due.requested_at), 'expiry');
      v_rejected := v_rejected + 1;
    end if;
  end loop;
  return jsonb_build_object('published', v_published, 'rejected', v_rejected);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.get_review(p_unit_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
           'unit_id', r.unit_id, 'run_id', r.run_id, 'dimension_id', r.dimension_id,
           'requested_at', r.requested_at, 'expires_at', r.expires_at, 'on_expiry', r.on_expiry,
           'decision', r.decision, 'decided_by', r.decided_by, 'decided_at', r.decided_at, 'reason', r.reason,
           'edits', r.edits, 'stage', u.stage, 'topic', u.topic->>'title',
           'script', jsonb_build_object('title', u.script->>'title', 'description', u.script->>'description',
                                        'hook', u.script->>'hook', 'narration', u.script->>'narration',
                                        'hashtags', coalesce(u.script->'hashtags', '[]'::jsonb)),
           'video', jsonb_build_object('video_key', u.video->>'video_key', 'duration_s', (u.video->>'duration_s')::numeric),
           'quality', u.quality,
           'scenes', coalesce((select jsonb_agg(jsonb_build_object('index', s.scene_index, 'prompt', s.prompt, 'narration', s.narration,
                                                                   'duration_s', s.duration_s, 'backend', s.backend, 'asset_key', s.asset_key)
                                                order by s.scene_index)
                                 from mdame.scenes s where s.unit_id = u.id), '[]'::jsonb))
    from mdame.unit_reviews r
    join mdame.work_units u on u.id = r.unit_id
   where r.unit_id = p_unit_id;
$function$
;

CREATE OR REPLACE FUNCTION mdame.list_reviews(p_dimension_id text DEFAULT NULL::text)
 RETURNS TABLE(unit_id uuid, run_id uuid, dimension_id text, title text, requested_at timestamp with time zone, expires_at timestamp with time zone, on_expiry text, quality_passed boolean)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select r.unit_id, r.run_id, r.dimension_id, u.script->>'title', r.requested_at, r.expires_at, r.on_expiry,
         (u.quality->>'passed')::boolean
    from mdame.unit_reviews r
    join mdame.work_units u on u.id = r.unit_id
   where r.decision is null and u.stage = 'awaiting_review'
     and (p_dimension_id is null or r.dimension_id = p_dimension_id)
   order by r.expires_at, r.unit_id
   limit 500;
$function$
;

CREATE OR REPLACE FUNCTION mdame.reject_review(p_unit_id uuid, p_reason text, p_decided_by text DEFAULT 'operator'::text)
 RETURNS mdame.unit_reviews
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_unit mdame.work_units;
  v_review mdame.unit_reviews;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  select * into v_review from mdame.unit_reviews where unit_id = p_unit_id for update;
  if not found then
    raise exception 'work unit % was never sent for review', p_unit_id using errcode = 'MDN01';
  end if;
  if v_review.decision = 'rejected' then
    return v_review;
  end if;
  if v_review.decision = 'approved' then
    raise exception 'the review of work unit % was approved already', p_unit_id using errcode = 'MDS01';
  end if;
  if v_unit.stage <> 'awaiting_review' then
    raise exception 'work unit % is at stage % and awaits no review', p_unit_id, v_unit.stage using errcode = 'MDS01';
  end if;
  if p_decided_by is null or p_decided_by not in ('operator', 'expiry') then
    raise exception 'a review is decided by operator or expiry, not %', coalesce(p_decided_by, 'null') using errcode = '22023';
  end if;
  if p_reason is null or btrim(p_reason) = '' or length(p_reason) > 500 then
    raise exception 'a rejection needs a reason of 1 to 500 characters' using errcode = '22023';
  end if;

  update mdame.unit_reviews
     set decision = 'rejected', decided_by = p_decided_by, decided_at = mdame.engine_now(), reason = btrim(p_reason)
   where unit_id = p_unit_id
  returning * into v_review;
  perform mdame.log_event(v_unit.run_id, p_unit_id, 'awaiting_review', 'review_rejected',
    jsonb_build_object('decided_by', p_decided_by, 'reason', v_review.reason));
  perform mdame.set_unit_stage(p_unit_id, 'rejected', 'rejected in review: ' || v_review.reason);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_review;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.complete_render_job(p_msg_id bigint, p_unit_id uuid, p_video jsonb, p_webhook_id text, p_quality jsonb DEFAULT NULL::jsonb)
 RETURNS mdame.work_units
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_queued boolean;
  v_library text;
  v_review jsonb;
  v_expires timestamptz;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if not found then
    raise exception 'no work unit %', p_unit_id using errcode = 'MDN01';
  end if;
  if p_quality is not null and (jsonb_typeof(p_quality) <> 'object' or coalesce(jsonb_typeof(p_quality->'passed'), '') <> 'boolean') then
    raise exception 'a quality report is an object with a boolean "passed"' using errcode = '22023';
  end if;
  -- A music bed is a track of the library the run's dimension names, never a key elsewhere in the store.
  if jsonb_typeof(p_video->'music') = 'object' then
    select config->'music'->>'library' into v_library
      from mdame.run_dimensions where run_id = v_unit.run_id and dimension_id = v_unit.dimension_id;
    if v_library is null or not starts_with(coalesce(p_video->'music'->>'track_key', ''), v_library || '/') then
      raise exception 'music track % is not in the music library of dimension % (%)', left(coalesce(p_video->'music'->>'track_key', 'none'), 200),
        v_unit.dimension_id, coalesce(v_library, 'it has none') using errcode = 'MDS01';
    end if;
  end if;
  if not mdame.record_webhook(p_webhook_id, 'render.completed') then
    return v_unit;
  end if;
  v_queued := mdame.assert_worker_message('render', p_msg_id, p_unit_id);
  -- A late call (the unit moved on) archives the unit's own job, if it is still queued.
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'render', 'render', case when v_queued then p_msg_id end, null);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  update mdame.work_units set video = p_video, quality = p_quality where id = p_unit_id;
  if v_queued then
    perform pgmq.archive('render', p_msg_id);
  end if;
  -- A dimension whose run requires review (run_dimensions.config->review) waits for the operator
  -- (docs/guides/review.md): nothing is queued for publishing, so nothing is uploaded or reserved.
  select rd.config->'review' into v_review from mdame.run_dimensions rd where rd.run_id = v_unit.run_id and rd.dimension_id = v_unit.dimension_id;
  if jsonb_typeof(v_review) = 'object' and coalesce((v_review->>'required')::boolean, true) then
    v_expires := mdame.engine_now() + coalesce(v_review->>'expires_after', '24h')::interval;
    insert into mdame.unit_reviews (unit_id, run_id, dimension_id, requested_at, expires_at, on_expiry)
    values (p_unit_id, v_unit.run_id, v_unit.dimension_id, mdame.engine_now(), v_expires, coalesce(v_review->>'on_expiry', 'reject'));
    v_unit := mdame.set_unit_stage(p_unit_id, 'awaiting_review');
    perform mdame.raise_alert('review_waiting', v_unit.dimension_id, 'review_waiting:' || p_unit_id,
      format('A %s video waits for review until %s (then %s): %s', v_unit.dimension_id, mdame.format_utc(v_expires),
             case when v_review->>'on_expiry' = 'publish' then 'published' else 'rejected' end, left(coalesce(v_unit.script->>'title', ''), 200)),
      jsonb_build_object('unit_id', p_unit_id, 'run_id', v_unit.run_id, 'title', v_unit.script->>'title', 'expires_at', v_expires,
                         'on_expiry', coalesce(v_review->>'on_expiry', 'reject'), 'approve', 'mdame review approve ' || p_unit_id,
                         'reject', 'mdame review reject ' || p_unit_id || ' --reason "..."'));
    return v_unit;
  end if;
  v_unit := mdame.set_unit_stage(p_unit_id, 'publish');
  perform mdame.enqueue_stage_task('publish', v_unit.run_id, p_unit_id);
  return v_unit;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.ops_overview(p_failures integer)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_now timestamptz := mdame.engine_now();
  v_today date := (mdame.engine_now() at time zone 'UTC')::date;
  v_limit integer := least(greatest(coalesce(p_failures, 20), 1), 200);
  v_stages text[] := array['script', 'safety', 'plan', 'media', 'render', 'awaiting_review', 'publish', 'deferred', 'published', 'rejected', 'failed'];
  v_dimensions jsonb;
  v_runs jsonb;
  v_units jsonb;
  v_stage_tasks jsonb;
  v_worker_jobs jsonb;
  v_failures jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object(
           'dimension_id', d.id,
           'display_name', d.display_name,
           'run', case when l.run_id is null then null else jsonb_build_object(
                    'id', l.run_id, 'status', l.run_status, 'trigger_kind', l.trigger_kind, 'run_date', l.run_date,
                    'created_at', l.created_at, 'finished_at', l.finished_at, 'error', l.error) end,
           'ingest_status', l.ingest_status,
           'topics_seen', coalesce(l.topics_seen, 0),
           'units_created', coalesce(l.units_created, 0),
           'funnel', (select jsonb_agg(jsonb_build_object('stage', s.stage,
                        'units', (select count(*) from mdame.work_units u where u.run_id = l.run_id and u.dimension_id = d.id and u.stage = s.stage))
                        order by s.ord)
                        from unnest(v_stages) with ordinality s(stage, ord))
         ) order by d.id), '[]'::jsonb)
    into v_dimensions
    from mdame.dimensions d
    left join lateral (
      select r.id as run_id, r.status as run_status, r.trigger_kind, r.run_date, r.created_at, r.finished_at, r.error,
             rd.status as ingest_status, rd.topics_seen, rd.units_created
        from mdame.run_dimensions rd join mdame.pipeline_runs r on r.id = rd.run_id
       where rd.dimension_id = d.id and r.run_date = v_today
       order by r.created_at desc
       limit 1
    ) l on true
   where d.active;

  select coalesce(jsonb_agg(jsonb_build_object('state', status, 'count', n) order by status), '[]'::jsonb) into v_runs
    from (select r.status, count(*) as n from mdame.pipeline_runs r where r.run_date = v_today group by r.status) c;

  select coalesce(jsonb_agg(jsonb_build_object('state', stage, 'count', n) order by array_position(v_stages, stage)), '[]'::jsonb) into v_units
    from (select u.stage, count(*) as n from mdame.pipeline_runs r join mdame.work_units u on u.run_id = r.id
           where r.run_date = v_today group by u.stage) c;

  select jsonb_build_array(
           jsonb_build_object('state', 'waiting', 'count', count(*) filter (where t.state in ('waiting', 'lease_expired'))),
           jsonb_build_object('state', 'leased', 'count', count(*) filter (where t.state = 'leased')),
           jsonb_build_object('state', 'retrying', 'count', count(*) filter (where t.state = 'retrying')),
           jsonb_build_object('state', 'delayed', 'count', count(*) filter (where t.state = 'delayed')),
           jsonb_build_object('state', 'dead_lettered', 'count',
             (select count(*) from mdame.dead_letters dl where dl.queue_name = 'stage_tasks' and dl.retried_at is null)))
    into v_stage_tasks
    from mdame.stage_task_leases(clock_timestamp()) t;

  select jsonb_build_array(
           jsonb_build_object('state', 'waiting', 'count', count(*) filter (where q.vt <= clock_timestamp())),
           jsonb_build_object('state', 'leased', 'count', count(*) filter (where q.vt > clock_timestamp() and q.read_ct > 0)),
           jsonb_build_object('state', 'delayed', 'count', count(*) filter (where q.vt > clock_timestamp() and q.read_ct = 0)),
           jsonb_build_object('state', 'dead_lettered', 'count',
             (select count(*) from mdame.dead_letters dl where dl.queue_name in ('visual_generation', 'render') and dl.retried_at is null)))
    into v_worker_jobs
    from (select w.vt, w.read_ct from pgmq.q_visual_generation w
          union all
          select r.vt, r.read_ct from pgmq.q_render r) q;

  select coalesce(jsonb_agg(to_jsonb(f) order by f.at desc, f.id), '[]'::jsonb) into v_failures
    from (
      (select 'unit' as kind, u.id::text as id, u.run_id, u.id as unit_id, u.dimension_id,
              (select e.stage from mdame.events e where e.run_id = u.run_id and e.unit_id = u.id and e.stage is not null order by e.id desc limit 1) as stage,
              coalesce(u.error, 'failed') as reason, u.updated_at as at, null::boolean as retried
         from mdame.work_units u where u.stage = 'failed' order by u.updated_at desc limit v_limit)
      union all
      (select 'run', r.id::text, r.id, null::uuid, r.dimension_filter, null::text,
              coalesce(r.error, 'failed'), coalesce(r.finished_at, r.updated_at), null::boolean
         from mdame.pipeline_runs r where r.status = 'failed' order by coalesce(r.finished_at, r.updated_at) desc limit v_limit)
      union all
      (select 'dead_letter', dl.id::text, u.run_id, dl.unit_id, u.dimension_id, dl.queue_name,
              dl.last_error, dl.created_at, dl.retried_at is not null
         from mdame.dead_letters dl left join mdame.work_units u on u.id = dl.unit_id
        order by dl.created_at desc limit v_limit)
      order by at desc, id
      limit v_limit
    ) f;

  return jsonb_build_object(
    'today', v_today,
    'engine_now', v_now,
    'dimensions', v_dimensions,
    'counts', jsonb_build_object('runs', v_runs, 'work_units', v_units, 'stage_tasks', v_stage_tasks, 'worker_jobs', v_worker_jobs),
    'failures', v_failures);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.set_unit_stage(p_unit_id uuid, p_stage text, p_error text DEFAULT NULL::text)
 RETURNS mdame.work_units
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
declare
  v_unit mdame.work_units;
begin
  update mdame.work_units u
     set stage = p_stage,
         stage_attempts = 0,
         stage_deadline = case when p_stage in ('awaiting_review', 'published', 'deferred', 'rejected', 'failed') then null
                               else now() + make_interval(secs => coalesce((mdame.unit_stage_policy(p_stage)).deadline_s, 3600)) end,
         error = coalesce(p_error, u.error),
         updated_at = now()
   where u.id = p_unit_id
  returning * into v_unit;
  perform mdame.log_event(v_unit.run_id, v_unit.id, p_stage, 'stage_entered', jsonb_strip_nulls(jsonb_build_object('error', p_error)));
  return v_unit;
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
  v_reviews jsonb;
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
                                    order by array_position(array['script', 'safety', 'plan', 'media', 'render', 'awaiting_review', 'publish', 'deferred'], l.stage), l.stage), '[]'::jsonb)
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
             -- An Instagram Reel's link needs its shortcode, which the engine does not record: none.
             'url', case when l.external_id is null then null
                         when l.platform = 'youtube' then 'https://www.youtube.com/shorts/' || l.external_id
                         when l.platform = 'tiktok' then 'https://www.tiktok.com/@' || ltrim(l.channel_handle, '@') || '/video/' || l.external_id
                         when l.platform = 'facebook' then 'https://www.facebook.com/reel/' || l.external_id end,
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
           'approved', count(*) filter (where r.decision = 'approved'),
           'rejected', count(*) filter (where r.decision = 'rejected'),
           'expired', count(*) filter (where r.decided_by = 'expiry'),
           'rejections', coalesce((
             select jsonb_agg(jsonb_build_object('reason', x.reason, 'count', x.n) order by x.n desc, x.reason)
               from (select left(r2.reason, 120) as reason, count(*) as n from mdame.unit_reviews r2
                      where r2.dimension_id = p_dimension_id and r2.decision = 'rejected' and r2.decided_at >= v_from and r2.decided_at < v_to
                      group by 1) x), '[]'::jsonb))
    into v_reviews
    from mdame.unit_reviews r
   where r.dimension_id = p_dimension_id and r.decision is not null and r.decided_at >= v_from and r.decided_at < v_to;

  return jsonb_build_object(
    'dimension_id', v_dimension.id,
    'display_name', v_dimension.display_name,
    'time_zone', v_zone,
    'week_start', v_week,
    'week_end', v_week + 6,
    'generated_at', mdame.engine_now(),
    'outcomes', v_outcomes,
    'topics_rejected', v_topics,
    'reviews', v_reviews,
    'daily', v_daily,
    'stage_latency', v_latency,
    'cache', v_cache,
    'quota', v_quota,
    'videos', v_videos);
end;
$function$
;

comment on table mdame.unit_reviews is 'Review before publish: one row per unit that waited for review, with its decision, who made it, the reason of a rejection and the replaced title/description.';

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_meta_refusal", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_counted_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_meta_post", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_meta_post", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "skip_publication", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb;
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "approve_review", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "expire_reviews", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_review", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_reviews", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_meta_refusal", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_counted_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_review", "reject_unit", "reject_unsafe_output", "release_meta_post", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_meta_post", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "skip_publication", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb);
insert into mdame.engine_jobs ("call", "name", "schedule", "returns_set") select "call", "name", "schedule", "returns_set" from jsonb_populate_record(null::mdame.engine_jobs, '{"call": "mdame.expire_reviews()", "name": "mdame-review-expiry", "schedule": "* * * * *", "returns_set": false}'::jsonb);

-- pg_cron: every job of mdame.engine_jobs (the minutely tick, scheduled runs, publish drain and
-- alerts; hourly analytics fetches; daily housekeeping; the weekly reports and adaptation; the
-- checks for due reports and Storage deletions), scheduled under its name. A job that exists keeps
-- its state (an operator may have paused it) and follows the table's schedule and command; nothing
-- is created twice and no error is swallowed, so a rerun changes nothing.

do $$
declare
  v_job mdame.engine_jobs;
  v_cron record;
begin
  for v_job in select * from mdame.engine_jobs order by name loop
    select j.jobid, j.schedule, j.command into v_cron from cron.job j where j.jobname = v_job.name;
    if v_cron.jobid is null then
      perform cron.schedule(v_job.name, v_job.schedule, v_job.command);
    elsif v_cron.schedule is distinct from v_job.schedule or v_cron.command is distinct from v_job.command then
      perform cron.alter_job(v_cron.jobid, schedule => v_job.schedule, command => v_job.command);
    end if;
  end loop;
end
$$;

select mdame.restrict_function_privileges();
