-- Instagram Reels and Facebook Page Reels: accounts and publications may be on instagram or facebook;
-- a publication may end skipped with its reason (an account that will not take the video, such as a
-- Facebook Reel past 90 s) and counts as done for its unit; get_publish_targets gives each account's
-- platform id; the Meta publishing ledger (meta_posts, meta_publishing_limits, reserve_meta_post,
-- release_meta_post, record_meta_refusal) and skip_publication.
-- render_job gives accounts all on Instagram or Facebook the reels caption zone; the reconnect command
-- an event or alert names is the platform's (reconnect_command); ops_quota counts Meta accounts' posts in their
-- window, and weekly_report links a Facebook Reel.
-- (written by `npm run schema:diff -- --write`; read it before it lands: migrations are append-only).

alter table "mdame"."dimension_accounts" drop constraint "dimension_accounts_platform_check";

alter table "mdame"."publications" drop constraint "publications_platform_check";

alter table "mdame"."publications" drop constraint "publications_status_check";

drop function if exists "mdame"."get_publish_targets"(p_unit_id uuid);

  create table "mdame"."meta_posts" (
    "publication_id" uuid not null,
    "account_id" uuid not null,
    "reserved_at" timestamp with time zone not null
      );

alter table "mdame"."meta_posts" enable row level security;

  create table "mdame"."meta_publishing_limits" (
    "account_id" uuid not null,
    "quota_total" integer not null,
    "quota_usage" integer,
    "full_until" timestamp with time zone,
    "read_at" timestamp with time zone not null
      );

alter table "mdame"."meta_publishing_limits" enable row level security;

alter table "mdame"."publications" add column "skip_reason" text;

CREATE UNIQUE INDEX meta_posts_pkey ON mdame.meta_posts USING btree (publication_id);

CREATE INDEX meta_posts_window_idx ON mdame.meta_posts USING btree (account_id, reserved_at);

CREATE UNIQUE INDEX meta_publishing_limits_pkey ON mdame.meta_publishing_limits USING btree (account_id);

alter table "mdame"."meta_posts" add constraint "meta_posts_pkey" PRIMARY KEY using index "meta_posts_pkey";

alter table "mdame"."meta_publishing_limits" add constraint "meta_publishing_limits_pkey" PRIMARY KEY using index "meta_publishing_limits_pkey";

alter table "mdame"."meta_posts" add constraint "meta_posts_account_id_fkey" FOREIGN KEY (account_id) REFERENCES mdame.dimension_accounts(id) ON DELETE CASCADE not valid;

alter table "mdame"."meta_posts" validate constraint "meta_posts_account_id_fkey";

alter table "mdame"."meta_posts" add constraint "meta_posts_publication_id_fkey" FOREIGN KEY (publication_id) REFERENCES mdame.publications(id) ON DELETE CASCADE not valid;

alter table "mdame"."meta_posts" validate constraint "meta_posts_publication_id_fkey";

alter table "mdame"."meta_publishing_limits" add constraint "meta_publishing_limits_account_id_fkey" FOREIGN KEY (account_id) REFERENCES mdame.dimension_accounts(id) ON DELETE CASCADE not valid;

alter table "mdame"."meta_publishing_limits" validate constraint "meta_publishing_limits_account_id_fkey";

alter table "mdame"."meta_publishing_limits" add constraint "meta_publishing_limits_quota_total_check" CHECK ((quota_total >= 0)) not valid;

alter table "mdame"."meta_publishing_limits" validate constraint "meta_publishing_limits_quota_total_check";

alter table "mdame"."meta_publishing_limits" add constraint "meta_publishing_limits_quota_usage_check" CHECK ((quota_usage >= 0)) not valid;

alter table "mdame"."meta_publishing_limits" validate constraint "meta_publishing_limits_quota_usage_check";

alter table "mdame"."publications" add constraint "publications_skip_reason_check" CHECK (((status = 'skipped'::text) = (skip_reason IS NOT NULL))) not valid;

alter table "mdame"."publications" validate constraint "publications_skip_reason_check";

alter table "mdame"."dimension_accounts" add constraint "dimension_accounts_platform_check" CHECK ((platform = ANY (ARRAY['youtube'::text, 'tiktok'::text, 'instagram'::text, 'facebook'::text]))) not valid;

alter table "mdame"."dimension_accounts" validate constraint "dimension_accounts_platform_check";

alter table "mdame"."publications" add constraint "publications_platform_check" CHECK ((platform = ANY (ARRAY['youtube'::text, 'tiktok'::text, 'instagram'::text, 'facebook'::text]))) not valid;

alter table "mdame"."publications" validate constraint "publications_platform_check";

alter table "mdame"."publications" add constraint "publications_status_check" CHECK ((status = ANY (ARRAY['pending'::text, 'uploading'::text, 'published'::text, 'deferred'::text, 'failed'::text, 'skipped'::text]))) not valid;

alter table "mdame"."publications" validate constraint "publications_status_check";

set check_function_bodies = off;

CREATE OR REPLACE FUNCTION mdame.meta_window_room_at(p_account_id uuid, p_publication_id uuid, p_over integer, p_now timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
 SET search_path TO ''
AS $function$
  select coalesce(
    (select reserved_at + interval '24 hours' from mdame.meta_posts
      where account_id = p_account_id and publication_id <> p_publication_id and reserved_at > p_now - interval '24 hours'
      order by reserved_at offset greatest(p_over, 1) - 1 limit 1),
    p_now + interval '1 hour');
$function$
;

CREATE OR REPLACE FUNCTION mdame.reconnect_command(p_account mdame.dimension_accounts)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
 SET search_path TO ''
AS $function$
  select format('mdame account connect %s --dimension %s %s', p_account.platform, p_account.dimension_id,
    case p_account.platform
      when 'instagram' then '--page ' || p_account.channel_handle
      when 'facebook' then '--page ' || coalesce(p_account.channel_id, p_account.channel_handle)
      else '--channel ' || p_account.channel_handle
    end);
$function$
;

CREATE OR REPLACE FUNCTION mdame.record_meta_refusal(p_publication_id uuid)
 RETURNS timestamp with time zone
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_post mdame.meta_posts;
  v_account mdame.dimension_accounts;
  v_now timestamptz := mdame.engine_now();
  v_not_before timestamptz;
begin
  select * into v_post from mdame.meta_posts where publication_id = p_publication_id;
  if not found then
    raise exception 'no Meta post reserved for publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_account from mdame.dimension_accounts where id = v_post.account_id for update;
  v_not_before := mdame.meta_window_room_at(v_account.id, p_publication_id, 1, v_now);
  update mdame.meta_publishing_limits
     set full_until = greatest(full_until, v_not_before), quota_usage = greatest(quota_usage, quota_total)
   where account_id = v_account.id;
  perform mdame.log_event(null, null, 'publish', 'meta_limit_refusal', jsonb_build_object(
    'account_id', v_account.id, 'platform', v_account.platform, 'channel_handle', v_account.channel_handle,
    'publication_id', p_publication_id, 'not_before', v_not_before));
  return v_not_before;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.release_meta_post(p_publication_id uuid)
 RETURNS boolean
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  delete from mdame.meta_posts where publication_id = p_publication_id;
  return found;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.reserve_meta_post(p_account_id uuid, p_publication_id uuid, p_quota_total integer, p_quota_usage integer DEFAULT NULL::integer)
 RETURNS mdame.meta_posts
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_account mdame.dimension_accounts;
  v_limit mdame.meta_publishing_limits;
  v_now timestamptz := mdame.engine_now();
  v_ours integer;
  v_used integer;
  v_not_before timestamptz;
  v_post mdame.meta_posts;
begin
  select * into v_account from mdame.dimension_accounts where id = p_account_id for update;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_account.platform not in ('instagram', 'facebook') then
    raise exception 'account % is on %, not on Instagram or Facebook', p_account_id, v_account.platform using errcode = '22023';
  end if;
  if p_quota_total is null or p_quota_total < 0 or p_quota_usage < 0 then
    raise exception 'a publishing limit is a quota_total and a quota_usage of at least 0 (got % and %)', p_quota_total, p_quota_usage
      using errcode = '22023';
  end if;
  perform 1 from mdame.publications where id = p_publication_id and account_id = p_account_id;
  if not found then
    raise exception 'no publication % of account %', p_publication_id, p_account_id using errcode = 'MDN01';
  end if;
  insert into mdame.meta_publishing_limits (account_id, quota_total, quota_usage, read_at)
  values (p_account_id, p_quota_total, p_quota_usage, v_now)
  on conflict (account_id) do update
    set quota_total = excluded.quota_total, quota_usage = excluded.quota_usage, read_at = excluded.read_at
  returning * into v_limit;
  select count(*)::integer into v_ours from mdame.meta_posts
   where account_id = p_account_id and publication_id <> p_publication_id and reserved_at > v_now - interval '24 hours';
  v_used := greatest(coalesce(p_quota_usage, 0), v_ours);
  if v_used >= p_quota_total or v_limit.full_until > v_now then
    v_not_before := greatest(v_limit.full_until, mdame.meta_window_room_at(p_account_id, p_publication_id, v_used - p_quota_total + 1, v_now));
    raise exception '% account % has made % of its % posts in the last 24 hours', v_account.platform, v_account.channel_handle, v_used, p_quota_total
      using errcode = 'MDQ03',
            detail = jsonb_build_object('not_before', v_not_before, 'posts', v_used, 'limit', p_quota_total)::text;
  end if;
  insert into mdame.meta_posts (publication_id, account_id, reserved_at) values (p_publication_id, p_account_id, v_now)
  on conflict (publication_id) do nothing;
  select * into v_post from mdame.meta_posts where publication_id = p_publication_id;
  return v_post;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.skip_publication(p_publication_id uuid, p_reason text)
 RETURNS mdame.publications
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_pub mdame.publications;
  v_unit mdame.work_units;
begin
  if coalesce(trim(p_reason), '') = '' or length(p_reason) > 1000 then
    raise exception 'a skipped publication needs its reason (1 to 1000 characters)' using errcode = '22023';
  end if;
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_unit from mdame.work_units where id = v_pub.unit_id for update;
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if v_pub.status in ('published', 'skipped') then
    return v_pub;
  end if;
  update mdame.publications
     set status = 'skipped', skip_reason = p_reason, deferred_reason = null, not_before = null, updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'publish', 'publication_skipped', jsonb_build_object(
    'publication_id', v_pub.id, 'account_id', v_pub.account_id, 'platform', v_pub.platform, 'reason', p_reason));
  return v_pub;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.alert_on_needs_reconnect()
 RETURNS trigger
 LANGUAGE plpgsql
 SET search_path TO ''
AS $function$
begin
  perform mdame.raise_alert(
    'needs_reconnect', new.dimension_id, 'needs_reconnect:' || new.id,
    format('The %s account %s of %s needs to be connected again: %s', new.platform, new.channel_handle, new.dimension_id,
           coalesce(new.health_reason, 'grant refused')),
    jsonb_build_object('account_id', new.id, 'platform', new.platform, 'channel_handle', new.channel_handle,
                       'reason', new.health_reason,
                       'fix', mdame.reconnect_command(new)));
  return new;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.complete_publication(p_msg_id bigint, p_publication_id uuid, p_external_id text, p_step_token text, p_holder text DEFAULT NULL::text)
 RETURNS mdame.work_units
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_pub mdame.publications;
  v_lock record;
  v_unit mdame.work_units;
begin
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_lock from mdame.lock_unit_at_stage(v_pub.unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  v_pub := mdame.mark_publication_published(p_publication_id, p_external_id, (v_lock.unit).run_id);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  if exists (select 1 from mdame.dimension_accounts a
              where a.dimension_id = (v_lock.unit).dimension_id and a.active
                and not exists (select 1 from mdame.publications p where p.unit_id = v_pub.unit_id and p.account_id = a.id and p.status in ('published', 'skipped'))) then
    return v_lock.unit;
  end if;
  perform mdame.store_step_result(p_step_token, (select jsonb_agg(jsonb_build_object('platform', platform, 'external_id', external_id))
                                                   from mdame.publications where unit_id = v_pub.unit_id));
  v_unit := mdame.set_unit_stage(v_pub.unit_id, 'published');
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.connect_account(p_dimension_id text, p_platform text, p_channel_handle text, p_channel_id text DEFAULT NULL::text, p_oauth_client_id text DEFAULT 'default'::text)
 RETURNS mdame.dimension_accounts
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_row mdame.dimension_accounts;
begin
  -- The dimension first (every account RPC locks in this order), so it cannot vanish meanwhile.
  perform 1 from mdame.dimensions where id = p_dimension_id for update;
  if not found then
    raise exception 'no dimension %', p_dimension_id using errcode = 'MDN01';
  end if;
  if coalesce(trim(p_channel_handle), '') = '' then
    raise exception 'a channel handle is needed' using errcode = '22023';
  end if;
  if coalesce(trim(p_oauth_client_id), '') = '' then
    raise exception 'an OAuth client id is needed' using errcode = '22023';
  end if;
  if p_platform is null or p_platform not in ('youtube', 'tiktok', 'instagram', 'facebook') then
    raise exception 'no platform %: accounts are on youtube, tiktok, instagram or facebook', coalesce(p_platform, '(none)') using errcode = '22023';
  end if;
  if p_platform = 'youtube' then
    insert into mdame.youtube_projects (oauth_client_id) values (p_oauth_client_id) on conflict do nothing;
  end if;
  insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, channel_id, oauth_client_id)
  values (p_dimension_id, p_platform, p_channel_handle, p_channel_id, p_oauth_client_id)
  on conflict (dimension_id, platform, channel_handle) do update
    set channel_id = coalesce(excluded.channel_id, mdame.dimension_accounts.channel_id),
        oauth_client_id = excluded.oauth_client_id,
        updated_at = now()
  returning * into v_row;
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.defer_publication(p_publication_id uuid, p_reason text, p_not_before timestamp with time zone)
 RETURNS mdame.publications
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_pub mdame.publications;
  v_unit mdame.work_units;
begin
  if p_reason is null or p_reason not in ('quota_spent', 'channel_cap', 'rate_limited', 'needs_reconnect') then
    raise exception 'unknown deferral reason %', p_reason using errcode = '22023';
  end if;
  select * into v_pub from mdame.publications where id = p_publication_id;
  if not found then
    raise exception 'no publication %', p_publication_id using errcode = 'MDN01';
  end if;
  select * into v_unit from mdame.work_units where id = v_pub.unit_id for update;
  select * into v_pub from mdame.publications where id = p_publication_id for update;
  if v_pub.status in ('published', 'skipped') then
    return v_pub;
  end if;
  update mdame.publications
     set status = 'deferred', deferred_reason = p_reason, not_before = p_not_before, updated_at = now()
   where id = p_publication_id
  returning * into v_pub;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'publish', 'publication_deferred', jsonb_build_object(
    'publication_id', v_pub.id, 'account_id', v_pub.account_id, 'reason', p_reason, 'not_before', p_not_before));
  return v_pub;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.defer_unit_publish(p_msg_id bigint, p_unit_id uuid, p_step_token text, p_holder text DEFAULT NULL::text)
 RETURNS mdame.work_units
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_lock record;
  v_unit mdame.work_units;
  v_open integer;
  v_deferred integer;
begin
  select * into v_lock from mdame.lock_unit_at_stage(p_unit_id, 'publish', 'stage_tasks', p_msg_id, p_holder);
  if not v_lock.at_stage then
    return v_lock.unit;
  end if;
  select count(*) filter (where p.status is null or p.status not in ('published', 'skipped', 'deferred')),
         count(*) filter (where p.status = 'deferred')
    into v_open, v_deferred
    from mdame.dimension_accounts a
    left join mdame.publications p on p.unit_id = p_unit_id and p.account_id = a.id
   where a.dimension_id = (v_lock.unit).dimension_id and a.active;
  if v_open > 0 then
    raise exception 'unit % has % account(s) neither published, skipped nor deferred', p_unit_id, v_open using errcode = 'MDS01';
  end if;
  if v_deferred = 0 then
    perform mdame.store_step_result(p_step_token, (select jsonb_agg(jsonb_build_object('platform', platform, 'external_id', external_id))
                                                     from mdame.publications where unit_id = p_unit_id));
    v_unit := mdame.set_unit_stage(p_unit_id, 'published');
  else
    v_unit := mdame.set_unit_stage(p_unit_id, 'deferred');
  end if;
  perform pgmq.archive('stage_tasks', p_msg_id);
  perform mdame.close_run_if_done(v_unit.run_id);
  return v_unit;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.get_publish_targets(p_unit_id uuid)
 RETURNS TABLE(account_id uuid, platform text, channel_handle text, credentials_enc text, health_state text, channel_id text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select a.id, a.platform, a.channel_handle, a.credentials_enc, a.health_state, a.channel_id
    from mdame.work_units u
    join mdame.dimension_accounts a on a.dimension_id = u.dimension_id and a.active
   where u.id = p_unit_id
   order by a.id;
$function$
;

CREATE OR REPLACE FUNCTION mdame.get_run_status(p_run_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
  select jsonb_build_object(
    'run', to_jsonb(r) - 'idempotency_key',
    'dimensions', coalesce((select jsonb_agg(to_jsonb(rd) - 'run_id' order by rd.dimension_id) from mdame.run_dimensions rd where rd.run_id = r.id), '[]'::jsonb),
    'units', coalesce((
      select jsonb_agg(jsonb_build_object(
        'id', u.id, 'dimension_id', u.dimension_id, 'stage', u.stage, 'title', coalesce(u.script->>'title', u.topic->>'title'),
        'error', u.error, 'updated_at', u.updated_at,
        'scenes_ready', (select count(*) from mdame.scenes s where s.unit_id = u.id and s.status = 'ready'),
        'scenes_total', (select count(*) from mdame.scenes s where s.unit_id = u.id),
        'video', u.video,
        'quality', u.quality,
        'publications', coalesce((select jsonb_agg(jsonb_build_object('platform', p.platform, 'status', p.status, 'external_id', p.external_id,
                                      'deferred_reason', p.deferred_reason, 'not_before', p.not_before, 'privacy_status', p.privacy_status,
                                      'skip_reason', p.skip_reason))
                                    from mdame.publications p where p.unit_id = u.id), '[]'::jsonb)
      ) order by u.dimension_id, u.created_at)
      from mdame.work_units u where u.run_id = r.id), '[]'::jsonb))
  from mdame.pipeline_runs r
  where r.id = p_run_id;
$function$
;

CREATE OR REPLACE FUNCTION mdame.mark_account_needs_reconnect(p_account_id uuid, p_reason text)
 RETURNS mdame.dimension_accounts
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_row mdame.dimension_accounts;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_row.health_state = 'needs_reconnect' then
    return v_row;
  end if;
  update mdame.dimension_accounts
     set health_state = 'needs_reconnect', health_reason = left(coalesce(p_reason, 'grant refused'), 500), health_since = now(), updated_at = now()
   where id = p_account_id
  returning * into v_row;
  perform mdame.log_event(null, null, 'publish', 'account_needs_reconnect', jsonb_build_object(
    'account_id', v_row.id, 'dimension_id', v_row.dimension_id, 'channel_handle', v_row.channel_handle, 'reason', v_row.health_reason,
    'fix', mdame.reconnect_command(v_row)));
  return v_row;
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.ops_quota()
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
begin
  return (
  with clock as (
    select mdame.engine_now() as now, mdame.youtube_quota_day(mdame.engine_now()) as day
  ), buckets as (
    select pr.oauth_client_id, b.bucket, b.ord, mdame.youtube_bucket_size(pr, b.bucket) as size
      from mdame.youtube_projects pr
     cross join unnest(array['uploads', 'units', 'stats', 'analytics']) with ordinality b(bucket, ord)
  ), spent as (
    select l.oauth_client_id, l.bucket,
           coalesce(sum(l.cost) filter (where l.status = 'settled'), 0) as used,
           coalesce(sum(l.cost) filter (where l.status = 'reserved'), 0) as reserved
      from mdame.quota_ledger l, clock
     where l.quota_day = clock.day
     group by l.oauth_client_id, l.bucket
  )
  select jsonb_build_object(
    'quota_day', clock.day,
    'resets_at', mdame.youtube_quota_resets_at(clock.day),
    'youtube', (select coalesce(jsonb_agg(jsonb_build_object(
                  'oauth_client_id', b.oauth_client_id, 'bucket', b.bucket,
                  'used', coalesce(s.used, 0), 'reserved', coalesce(s.reserved, 0), 'limit', b.size,
                  'remaining', b.size - coalesce(s.used, 0) - coalesce(s.reserved, 0)) order by b.oauth_client_id, b.ord), '[]'::jsonb)
                  from buckets b left join spent s on s.oauth_client_id = b.oauth_client_id and s.bucket = b.bucket
                 where b.oauth_client_id = 'default'
                    or exists (select 1 from mdame.dimension_accounts a where a.oauth_client_id = b.oauth_client_id and a.platform = 'youtube')),
    'tiktok', (select coalesce(jsonb_agg(jsonb_build_object(
                 'account_id', a.id, 'channel_handle', a.channel_handle, 'call_kind', rl.call_kind,
                 'used', (select count(*) from mdame.tiktok_calls t
                           where t.account_id = a.id and t.call_kind = rl.call_kind
                             and t.created_at > clock.now - make_interval(secs => rl.per_seconds)),
                 'limit', rl.calls, 'window_s', rl.per_seconds) order by a.dimension_id, a.channel_handle, rl.call_kind), '[]'::jsonb)
                 from mdame.dimension_accounts a cross join mdame.tiktok_rate_limits rl
                where a.platform = 'tiktok'),
    'accounts', (select coalesce(jsonb_agg(jsonb_build_object(
                   'id', a.id, 'dimension_id', a.dimension_id, 'platform', a.platform, 'channel_handle', a.channel_handle,
                   'status', case when a.health_state = 'needs_reconnect' then 'needs_reconnect'
                                  when a.credentials_enc is null then 'not_connected'
                                  when not a.active then 'paused'
                                  else 'active' end,
                   'health_reason', a.health_reason, 'health_since', a.health_since, 'oauth_client_id', a.oauth_client_id,
                   'granted_scopes', to_jsonb(a.granted_scopes),
                   'upload_cap_24h', coalesce(ml.quota_total, a.upload_cap_24h),
                   'uploads_24h', case when a.platform = 'youtube'
                     then (select count(*) from mdame.quota_ledger l
                            where l.account_id = a.id and l.entry = 'call' and l.call_kind = 'videos.insert' and l.status <> 'released'
                              and l.created_at > clock.now - interval '24 hours')
                     when a.platform in ('instagram', 'facebook')
                     then (select count(*) from mdame.meta_posts m where m.account_id = a.id and m.reserved_at > clock.now - interval '24 hours')
                     else (select count(*) from mdame.tiktok_calls t
                            where t.account_id = a.id and t.call_kind = 'video.init' and t.created_at > clock.now - interval '24 hours') end,
                   'upload_cap_full_until', coalesce(ml.full_until, a.upload_cap_full_until)) order by a.dimension_id, a.platform, a.channel_handle), '[]'::jsonb)
                   from mdame.dimension_accounts a left join mdame.meta_publishing_limits ml on ml.account_id = a.id))
  from clock);
end;
$function$
;

CREATE OR REPLACE FUNCTION mdame.render_job(p_unit_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
declare
  v_unit mdame.work_units;
  v_config jsonb;
  v_job jsonb;
  v_profile text;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id;
  v_config := coalesce((select rd.config from mdame.run_dimensions rd where rd.run_id = v_unit.run_id and rd.dimension_id = v_unit.dimension_id),
                       (select mdame.dimension_config(d) from mdame.dimensions d where d.id = v_unit.dimension_id));
  v_profile := coalesce(v_config->'captions'->>'profile', 'platforms');
  if v_profile = 'platforms' then
    select case when count(distinct p.profile) = 1 then min(p.profile) end
      into v_profile
      from (select case a.platform when 'youtube' then 'youtube_shorts' when 'tiktok' then 'tiktok'
                                   when 'instagram' then 'reels' when 'facebook' then 'reels' end as profile
              from mdame.dimension_accounts a where a.dimension_id = v_unit.dimension_id and a.active) p;
    v_profile := coalesce(v_profile, 'intersection');
  end if;
  v_job := jsonb_build_object(
    'run_id', v_unit.run_id, 'unit_id', v_unit.id, 'dimension_id', v_unit.dimension_id,
    'title', v_unit.script->>'title',
    'audio_key', v_unit.voice->>'audio_key', 'audio_duration_ms', (v_unit.voice->>'duration_ms')::integer,
    'words', v_unit.voice->'words',
    'scenes', (select jsonb_agg(jsonb_build_object('index', s.scene_index, 'asset_key', s.asset_key, 'first_word', s.first_word) order by s.scene_index)
                 from mdame.scenes s where s.unit_id = p_unit_id),
    'caption_font', coalesce(v_config->'style'->>'caption_font', 'DejaVu Sans'),
    'caption_profile', v_profile);
  -- Only a job with a bed names one, so voice-only jobs keep the step token they had.
  if coalesce(jsonb_typeof(v_config->'music'), 'null') <> 'null' then
    v_job := v_job || jsonb_build_object('music', v_config->'music');
  end if;
  return v_job || jsonb_build_object('step_token', mdame.step_token(v_unit.id::text, mdame.stage_index('render'), v_job));
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
    select distinct on (va.publication_id) va.*, p.platform, p.external_id, a.channel_handle, u.script->>'title' as title
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
             'likes', l.likes) as video,
           l.engaged_views, l.views, l.average_view_percentage, l.publication_id
      from latest l
     where l.fetched_at >= v_from
  )
  select jsonb_build_object(
           'count', (select count(*) from week),
           'best_engaged', (select w.video from week w order by w.engaged_views desc, w.views desc, w.publication_id limit 1),
           'worst_engaged', (select w.video from week w order by w.engaged_views, w.views, w.publication_id limit 1),
           'best_retention', (select w.video from week w order by w.average_view_percentage desc, w.views desc, w.publication_id limit 1),
           'worst_retention', (select w.video from week w order by w.average_view_percentage, w.views, w.publication_id limit 1))
    into v_videos;

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
    'videos', v_videos);
end;
$function$
;

comment on function mdame.meta_window_room_at(uuid,uuid,integer,timestamp with time zone) is 'internal: when a Meta account''s publishing window has room, for reserve_meta_post and record_meta_refusal';
comment on function mdame.reconnect_command(mdame.dimension_accounts) is 'internal: the reconnect command of mark_account_needs_reconnect''s event and alert_on_needs_reconnect''s alert';

delete from mdame.component_roles t where to_jsonb(t) @> '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb;
insert into mdame.component_roles ("role", "rpcs", "component") select "role", "rpcs", "component" from jsonb_populate_record(null::mdame.component_roles, '{"role": "mdame_engine", "rpcs": ["abort_run", "ack_storage_deletion", "assert_environment", "begin_publication", "canonical_json", "check_alerts", "claim_adaptation_week", "claim_alerts", "claim_analytics_fetches", "claim_stage_tasks", "claim_storage_deletions", "claim_thumbnail_sets", "claim_weekly_reports", "clear_upload_session", "complete_publication", "complete_render_job", "complete_visual_job", "complete_weekly_report", "config_hash", "connect_account", "create_dimension", "database_usage", "defer_publication", "defer_unit_publish", "dimension_config", "drain_deferred_publications", "engine_now", "extend_stage_lease", "fail_stage_task", "fail_weekly_report", "fail_worker_job", "finish_adaptation_week", "finish_thumbnail_set", "get_accounts", "get_adaptation_evidence", "get_dimensions", "get_effective_dimension_config", "get_llm_cache", "get_publication", "get_publish_targets", "get_queue_setup", "get_recorded_environment", "get_run_analytics", "get_run_dimension_config", "get_run_status", "get_scene", "get_scenes", "get_step_result", "get_topic_history", "get_work_unit", "get_youtube_client", "get_youtube_projects", "housekeeping", "housekeeping_settings", "list_adaptations", "list_alerts", "list_dead_letters", "list_locked_publications", "list_runs", "list_schedules", "llm_routing_is_valid", "lock_dimension", "lookup_scene_cache", "mark_account_needs_reconnect", "mark_adaptation_week_due", "ops_overview", "ops_queues", "ops_quota", "ops_schedules", "ops_video", "ops_videos", "publishing_is_valid", "queue_weekly_reports", "queues_without_workers", "raise_alert", "record_account_scopes", "record_adaptation", "record_alert_attempt", "record_alert_sent", "record_cache_lookup", "record_meta_refusal", "record_publication", "record_publication_privacy", "record_safety_verdict", "record_tiktok_video_analytics", "record_scene_plan", "record_script", "record_tick_ok", "record_topics", "record_upload_session", "record_video_analytics", "record_voice", "record_youtube_refusal", "recover_overdue_work", "register_youtube_project", "reject_script", "reject_unit", "reject_unsafe_output", "release_meta_post", "release_youtube_call", "remove_account", "remove_youtube_project", "render_job", "replay_step_result", "reseal_account_credentials", "reseal_youtube_project_secret", "reserve_meta_post", "reserve_tiktok_call", "reserve_youtube_call", "retry_analytics_fetch", "retry_dead_letter", "retry_storage_deletion", "revert_adaptation", "run_engine_job", "run_key", "schedule_analytics_fetches", "set_account_active", "set_adaptation_pin", "set_dimension_active", "set_engine_clock", "set_housekeeping_setting", "settle_youtube_call", "skip_publication", "start_run", "step_token", "store_account_credentials", "store_llm_cache", "tick", "trigger_run", "trigger_scheduled_run", "update_dimension", "wake_due_storage_deletions", "watchdog_status", "wake_due_weekly_reports", "wake_next_tick", "wake_stage_runner", "weekly_report", "youtube_quota_day", "youtube_quota_resets_at"], "component": "edge"}'::jsonb);

select mdame.restrict_function_privileges();
