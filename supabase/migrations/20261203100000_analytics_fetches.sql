-- YouTube Analytics for every published video: the scopes each account's grant carries, the
-- Analytics API's own quota bucket in the ledger, the fetch rows and their queue, the RPCs that
-- schedule, claim, retry and record the fetches, and the hourly schedule.

alter table mdame.dimension_accounts add column granted_scopes text[];
comment on column mdame.dimension_accounts.granted_scopes is 'The OAuth scopes the last connect''s grant carried (the token answer''s scope); null when connected before scopes were recorded.';

alter table mdame.youtube_projects add column analytics_queries_per_day integer not null default 10000;
alter table mdame.youtube_projects add constraint youtube_projects_analytics_queries_per_day_check check ((analytics_queries_per_day >= 0));
comment on column mdame.youtube_projects.analytics_queries_per_day is 'YouTube Analytics API reports.query calls the project may make per Pacific day: a quota of its own, apart from the Data API units (docs/analytics.md).';

alter table mdame.youtube_call_costs drop constraint youtube_call_costs_bucket_check;
alter table mdame.youtube_call_costs add constraint youtube_call_costs_bucket_check check ((bucket = any (array['uploads'::text, 'units'::text, 'analytics'::text])));
alter table mdame.quota_ledger drop constraint quota_ledger_bucket_check;
alter table mdame.quota_ledger add constraint quota_ledger_bucket_check check ((bucket = any (array['uploads'::text, 'units'::text, 'analytics'::text])));
insert into mdame.youtube_call_costs (call_kind, bucket, cost) values ('analytics.reports.query', 'analytics', 1) on conflict do nothing;

create table mdame.analytics_fetches (
  publication_id uuid not null,
  window_days integer not null,
  status text not null default 'queued'::text,
  msg_id bigint,
  attempts integer not null default 0,
  due_at timestamp with time zone not null,
  enqueued_at timestamp with time zone not null,
  last_error text,
  finished_at timestamp with time zone,
  constraint analytics_fetches_pkey primary key (publication_id, window_days),
  constraint analytics_fetches_publication_id_fkey foreign key (publication_id) references mdame.publications(id),
  constraint analytics_fetches_window_days_check check ((window_days = any (array[3, 7]))),
  constraint analytics_fetches_status_check check ((status = any (array['queued'::text, 'fetched'::text, 'given_up'::text]))),
  constraint analytics_fetches_attempts_check check ((attempts >= 0))
);

comment on table mdame.analytics_fetches is 'Each published YouTube video''s day-3 and day-7 Analytics fetch: enqueued once, then fetched or given up.';

alter table mdame.analytics_fetches enable row level security;

select pgmq.create('analytics_fetches');

-- Reserves one YouTube call before it is made: its cost (mdame.youtube_call_costs) from the bucket
-- (uploads, Data API units, or the Analytics API's own queries)
-- of the account's Google project for the current Pacific quota day and, for videos.insert, a place
-- in the channel's rolling 24-hour upload cap, both on the engine's clock (mdame.engine_now). The project row is locked first, so two publishers
-- racing for the last unit are served one after the other and exactly one gets it. A publication's
-- call is reserved once: a repeat (a resumed upload) returns the reservation it already holds.
-- Refusals carry, in their DETAIL, a JSON object with not_before, the instant the account may try
-- again: MDQ02 when the bucket is spent (the next Pacific midnight), MDQ03 when the channel's cap
-- is reached (when the oldest upload of the window ages out, or the time YouTube's refusal set).

create or replace function mdame.reserve_youtube_call(p_account_id uuid, p_call_kind text, p_publication_id uuid default null::uuid)
returns mdame.quota_ledger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_account mdame.dimension_accounts;
  v_project mdame.youtube_projects;
  v_cost mdame.youtube_call_costs;
  v_entry mdame.quota_ledger;
  v_now timestamptz := mdame.engine_now();
  v_day date := mdame.youtube_quota_day(v_now);
  v_size integer;
  v_used integer;
  v_window record;
  v_not_before timestamptz;
begin
  select * into v_cost from mdame.youtube_call_costs where call_kind = p_call_kind;
  if not found then
    raise exception 'no YouTube call kind %', p_call_kind using errcode = 'MDN01';
  end if;
  select * into v_account from mdame.dimension_accounts where id = p_account_id;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  select * into v_project from mdame.youtube_projects where oauth_client_id = v_account.oauth_client_id for update;
  select * into v_account from mdame.dimension_accounts where id = p_account_id for update;
  if p_publication_id is not null then
    if not exists (select 1 from mdame.publications where id = p_publication_id and account_id = p_account_id) then
      raise exception 'no publication % on account %', p_publication_id, p_account_id using errcode = 'MDN01';
    end if;
    select * into v_entry from mdame.quota_ledger
     where publication_id = p_publication_id and call_kind = p_call_kind and entry = 'call' and status <> 'released';
    if found then
      return v_entry;
    end if;
  end if;

  v_size := case v_cost.bucket when 'uploads' then v_project.upload_calls_per_day
                             when 'analytics' then v_project.analytics_queries_per_day
                             else v_project.api_units_per_day end;
  select coalesce(sum(cost), 0) into v_used from mdame.quota_ledger
   where oauth_client_id = v_project.oauth_client_id and quota_day = v_day and bucket = v_cost.bucket and status <> 'released';
  if v_used + v_cost.cost > v_size then
    raise exception 'the % bucket of Google project % is spent for quota day % (% of %); % needs %',
      v_cost.bucket, v_project.oauth_client_id, v_day, v_used, v_size, p_call_kind, v_cost.cost
      using errcode = 'MDQ02',
            detail = jsonb_build_object('not_before', mdame.youtube_quota_resets_at(v_day), 'bucket', v_cost.bucket,
                                        'oauth_client_id', v_project.oauth_client_id)::text;
  end if;

  if p_call_kind = 'videos.insert' then
    v_window := mdame.channel_upload_window(p_account_id, v_now);
    if v_account.upload_cap_full_until > v_now or v_window.uploads >= v_account.upload_cap_24h then
      v_not_before := greatest(v_account.upload_cap_full_until,
                               case when v_window.uploads >= v_account.upload_cap_24h then v_window.oldest_ages_out end);
      raise exception 'channel % reached its upload cap (% in the last 24 hours, cap %)',
        v_account.channel_handle, v_window.uploads, v_account.upload_cap_24h
        using errcode = 'MDQ03',
              detail = jsonb_build_object('not_before', v_not_before, 'cap', v_account.upload_cap_24h, 'uploads', v_window.uploads)::text;
    end if;
  end if;

  insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, created_at)
  values (v_project.oauth_client_id, p_account_id, p_publication_id, p_call_kind, v_cost.bucket, v_cost.cost, v_day, v_now)
  returning * into v_entry;
  return v_entry;
end;
$$;

revoke all on function mdame.reserve_youtube_call(uuid,text,uuid) from public, anon, authenticated;
grant execute on function mdame.reserve_youtube_call(uuid,text,uuid) to mdame_engine;
grant execute on function mdame.reserve_youtube_call(uuid,text,uuid) to service_role;

-- YouTube refused a reserved call because of its own count, which the ledger may not know in full
-- (calls made by other tools through the same project, web and mobile uploads on the channel).
-- The refused call is released, then the ledger is corrected and the instant the account may try
-- again is returned (on the engine's clock, mdame.engine_now):
-- - quotaExceeded (403, domain youtube.quota): the call's bucket is filled for the rest of the
--   quota day (a correction row), so every account of the project waits for the Pacific midnight;
-- - uploadLimitExceeded (400): the channel's 24-hour cap is lowered to the uploads the ledger counts
--   in the window (at least 1) and the channel takes no upload until the oldest of them ages out,
--   or for 24 hours when the ledger counts none (the uploads YouTube counted were made elsewhere).

create or replace function mdame.record_youtube_refusal(p_entry_id uuid, p_reason text)
returns timestamp with time zone
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_entry mdame.quota_ledger;
  v_project mdame.youtube_projects;
  v_account mdame.dimension_accounts;
  v_now timestamptz := mdame.engine_now();
  v_day date := mdame.youtube_quota_day(v_now);
  v_size integer;
  v_used integer;
  v_window record;
  v_not_before timestamptz;
begin
  if p_reason is null or p_reason not in ('quotaExceeded', 'uploadLimitExceeded') then
    raise exception 'unknown YouTube refusal %', p_reason using errcode = '22023';
  end if;
  select * into v_entry from mdame.quota_ledger where id = p_entry_id and entry = 'call';
  if not found then
    raise exception 'no reserved YouTube call %', p_entry_id using errcode = 'MDN01';
  end if;
  select * into v_project from mdame.youtube_projects where oauth_client_id = v_entry.oauth_client_id for update;
  select * into v_account from mdame.dimension_accounts where id = v_entry.account_id for update;
  if (select status from mdame.quota_ledger where id = p_entry_id for update) = 'reserved' then
    update mdame.quota_ledger set status = 'released', settled_at = v_now where id = p_entry_id;
  end if;

  if p_reason = 'quotaExceeded' then
    v_size := case v_entry.bucket when 'uploads' then v_project.upload_calls_per_day
                             when 'analytics' then v_project.analytics_queries_per_day
                             else v_project.api_units_per_day end;
    select coalesce(sum(cost), 0) into v_used from mdame.quota_ledger
     where oauth_client_id = v_project.oauth_client_id and quota_day = v_day and bucket = v_entry.bucket and status <> 'released';
    if v_used < v_size then
      insert into mdame.quota_ledger (oauth_client_id, account_id, publication_id, call_kind, bucket, cost, quota_day, entry, status, settled_at)
      values (v_project.oauth_client_id, v_account.id, null, v_entry.call_kind, v_entry.bucket, v_size - v_used, v_day, 'correction', 'settled', v_now);
    end if;
    v_not_before := mdame.youtube_quota_resets_at(v_day);
  else
    v_window := mdame.channel_upload_window(v_account.id, v_now);
    v_not_before := coalesce(v_window.oldest_ages_out, v_now + interval '24 hours');
    update mdame.dimension_accounts
       set upload_cap_24h = least(upload_cap_24h, greatest(v_window.uploads, 1)),
           upload_cap_full_until = greatest(upload_cap_full_until, v_not_before),
           updated_at = now()
     where id = v_account.id;
  end if;
  perform mdame.log_event(null, null, 'publish', 'youtube_refusal', jsonb_build_object(
    'reason', p_reason, 'account_id', v_account.id, 'channel_handle', v_account.channel_handle,
    'oauth_client_id', v_project.oauth_client_id, 'call_kind', v_entry.call_kind, 'not_before', v_not_before));
  return v_not_before;
end;
$$;

revoke all on function mdame.record_youtube_refusal(uuid,text) from public, anon, authenticated;
grant execute on function mdame.record_youtube_refusal(uuid,text) to mdame_engine;
grant execute on function mdame.record_youtube_refusal(uuid,text) to service_role;

-- The hourly schedule (pg_cron job mdame-analytics-fetches): every published YouTube video whose
-- day-3 or day-7 window has come on the engine's clock (published_at + 3 or 7 days, mdame.engine_now),
-- on an active and healthy account, whose window was never enqueued nor fetched, gets one message
-- on the analytics_fetches queue and its row in mdame.analytics_fetches; that row makes a second
-- schedule (or a racing one) skip the window. The stage runner is woken when anything was enqueued.
-- Returns how many windows were enqueued.

create or replace function mdame.schedule_analytics_fetches()
returns integer
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_now timestamptz := mdame.engine_now();
  v_due record;
  v_msg_id bigint;
  v_count integer := 0;
begin
  for v_due in
    select p.id as publication_id, w.days as window_days, p.published_at + make_interval(days => w.days) as due_at
      from mdame.publications p
      join mdame.dimension_accounts a on a.id = p.account_id
     cross join (values (3), (7)) as w(days)
     where p.platform = 'youtube' and p.status = 'published' and p.external_id is not null and p.published_at is not null
       and a.active and a.health_state = 'ok'
       and p.published_at + make_interval(days => w.days) <= v_now
       and not exists (select 1 from mdame.analytics_fetches f where f.publication_id = p.id and f.window_days = w.days)
       and not exists (select 1 from mdame.video_analytics v where v.publication_id = p.id and v.window_days = w.days)
     order by 3, 1, 2
  loop
    insert into mdame.analytics_fetches (publication_id, window_days, due_at, enqueued_at)
    values (v_due.publication_id, v_due.window_days, v_due.due_at, v_now)
    on conflict do nothing;
    if not found then
      continue;
    end if;
    select s into v_msg_id from pgmq.send('analytics_fetches',
      jsonb_build_object('publication_id', v_due.publication_id, 'window_days', v_due.window_days)) as s;
    update mdame.analytics_fetches set msg_id = v_msg_id
     where publication_id = v_due.publication_id and window_days = v_due.window_days;
    v_count := v_count + 1;
  end loop;
  if v_count > 0 then
    perform mdame.wake_stage_runner('analytics');
  end if;
  return v_count;
end;
$$;

revoke all on function mdame.schedule_analytics_fetches() from public, anon, authenticated;
grant execute on function mdame.schedule_analytics_fetches() to mdame_engine;
grant execute on function mdame.schedule_analytics_fetches() to service_role;

-- Claims up to p_qty visible messages of the analytics_fetches queue for p_vt_s seconds (pgmq.read)
-- and answers what a fetch needs: the publication's video, when it was published, its account and
-- sealed credentials, and the engine's clock (to turn a not-before instant into a delay). Each claim counts one attempt on the fetch's row. A message whose fetch is no
-- longer queued (fetched or given up meanwhile) or unknown is archived and not returned.

create or replace function mdame.claim_analytics_fetches(p_qty integer, p_vt_s integer)
returns table(msg_id bigint, read_ct integer, publication_id uuid, window_days integer, attempts integer,
              external_id text, published_at timestamp with time zone, unit_id uuid, run_id uuid,
              account_id uuid, dimension_id text, channel_handle text, oauth_client_id text,
              credentials_enc text, account_ready boolean, engine_now timestamp with time zone)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_msg record;
  v_fetch mdame.analytics_fetches;
begin
  if p_qty is null or p_qty < 1 or p_qty > 100 or p_vt_s is null or p_vt_s < 1 or p_vt_s > 3600 then
    raise exception 'claim 1..100 fetches for 1..3600 seconds (asked % for %)', p_qty, p_vt_s using errcode = '22023';
  end if;
  for v_msg in select m.msg_id, m.read_ct, m.message from pgmq.read('analytics_fetches', p_vt_s, p_qty) m order by m.msg_id
  loop
    v_fetch := null;
    begin
      select * into v_fetch from mdame.analytics_fetches f
       where f.publication_id = (v_msg.message->>'publication_id')::uuid and f.window_days = (v_msg.message->>'window_days')::integer
       for update;
    exception when invalid_text_representation then
      v_fetch := null;
    end;
    if v_fetch.publication_id is null or v_fetch.status <> 'queued' then
      perform pgmq.archive('analytics_fetches', v_msg.msg_id);
      continue;
    end if;
    update mdame.analytics_fetches f set attempts = f.attempts + 1, msg_id = v_msg.msg_id
     where f.publication_id = v_fetch.publication_id and f.window_days = v_fetch.window_days;
    return query
      select v_msg.msg_id, v_msg.read_ct, p.id, v_fetch.window_days, v_fetch.attempts + 1, p.external_id, p.published_at,
             u.id, u.run_id, a.id, a.dimension_id, a.channel_handle, a.oauth_client_id, a.credentials_enc,
             a.active and a.health_state = 'ok' and a.credentials_enc is not null, mdame.engine_now()
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       where p.id = v_fetch.publication_id;
  end loop;
end;
$$;

revoke all on function mdame.claim_analytics_fetches(integer,integer) from public, anon, authenticated;
grant execute on function mdame.claim_analytics_fetches(integer,integer) to mdame_engine;
grant execute on function mdame.claim_analytics_fetches(integer,integer) to service_role;

-- Stores what YouTube Analytics reported for a published YouTube video at one window (3 or 7 days):
-- an upsert on (publication_id, window_days), so a repeated fetch replaces the figures and moves
-- fetched_at (the engine's clock, mdame.engine_now). Marks the window's fetch fetched and, when
-- p_msg_id is given, archives its queue message in the same transaction: the message leaves the
-- queue only once the row is written. Figures that cannot be YouTube's are refused (22023): a
-- window other than 3 or 7, a missing or negative figure, more engaged views than views,
-- a period that ends before it starts, a retention curve that is not up to 100 points
-- {ratio in (0,1], watch_ratio >= 0} in increasing ratio order. An unknown or non-YouTube
-- publication is MDN01.

create or replace function mdame.record_video_analytics(p_publication_id uuid, p_window_days integer, p_period_start date, p_period_end date,
  p_views bigint, p_engaged_views bigint, p_average_view_duration_s numeric, p_average_view_percentage numeric, p_likes bigint,
  p_retention jsonb, p_msg_id bigint default null::bigint)
returns mdame.video_analytics
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_publication mdame.publications;
  v_row mdame.video_analytics;
  v_now timestamptz := mdame.engine_now();
  v_unit mdame.work_units;
  v_bad text;
begin
  if p_window_days is null or p_window_days not in (3, 7) then
    raise exception 'the window is 3 or 7 days, not %', coalesce(p_window_days::text, '(none)') using errcode = '22023';
  end if;
  if p_period_start is null or p_period_end is null or p_period_end < p_period_start then
    raise exception 'the period must have a start and an end not before it' using errcode = '22023';
  end if;
  if p_views is null or p_engaged_views is null or p_likes is null or p_average_view_duration_s is null or p_average_view_percentage is null
     or p_views < 0 or p_engaged_views < 0 or p_likes < 0 or p_average_view_duration_s < 0 or p_average_view_percentage < 0 then
    raise exception 'views, engaged views, likes and the averages must be given and not negative' using errcode = '22023';
  end if;
  if p_engaged_views > p_views then
    raise exception 'engaged views (%) cannot exceed views (%)', p_engaged_views, p_views using errcode = '22023';
  end if;
  if p_retention is null or jsonb_typeof(p_retention) <> 'array' or jsonb_array_length(p_retention) > 100 then
    raise exception 'the retention curve must be an array of at most 100 points' using errcode = '22023';
  end if;
  select format('point %s', e.i) into v_bad
    from jsonb_array_elements(p_retention) with ordinality as e(p, i)
   where jsonb_typeof(e.p) <> 'object'
      or (select count(*) from jsonb_object_keys(e.p)) <> 2
      or jsonb_typeof(e.p->'ratio') is distinct from 'number' or jsonb_typeof(e.p->'watch_ratio') is distinct from 'number'
      or (e.p->>'ratio')::numeric <= 0 or (e.p->>'ratio')::numeric > 1 or (e.p->>'watch_ratio')::numeric < 0
      or (e.i > 1 and (e.p->>'ratio')::numeric <= (p_retention->(e.i::integer - 2)->>'ratio')::numeric)
   order by e.i
   limit 1;
  if v_bad is not null then
    raise exception 'the retention curve''s % is not {ratio in (0,1], watch_ratio >= 0} after the point before it', v_bad using errcode = '22023';
  end if;

  select * into v_publication from mdame.publications where id = p_publication_id;
  if not found or v_publication.platform <> 'youtube' then
    raise exception 'no YouTube publication %', p_publication_id using errcode = 'MDN01';
  end if;

  insert into mdame.video_analytics (publication_id, window_days, fetched_at, period_start, period_end, views, engaged_views,
                                     average_view_duration_s, average_view_percentage, likes, retention)
  values (p_publication_id, p_window_days, v_now, p_period_start, p_period_end, p_views, p_engaged_views,
          p_average_view_duration_s, p_average_view_percentage, p_likes, p_retention)
  on conflict (publication_id, window_days) do update
    set fetched_at = excluded.fetched_at, period_start = excluded.period_start, period_end = excluded.period_end,
        views = excluded.views, engaged_views = excluded.engaged_views, average_view_duration_s = excluded.average_view_duration_s,
        average_view_percentage = excluded.average_view_percentage, likes = excluded.likes, retention = excluded.retention
  returning * into v_row;

  update mdame.analytics_fetches
     set status = 'fetched', finished_at = v_now, last_error = null
   where publication_id = p_publication_id and window_days = p_window_days;
  if p_msg_id is not null then
    perform pgmq.archive('analytics_fetches', p_msg_id);
  end if;
  select * into v_unit from mdame.work_units where id = v_publication.unit_id;
  perform mdame.log_event(v_unit.run_id, v_unit.id, 'analytics', 'analytics_fetched', jsonb_build_object(
    'publication_id', p_publication_id, 'external_id', v_publication.external_id, 'window_days', p_window_days,
    'views', p_views, 'engaged_views', p_engaged_views, 'average_view_percentage', p_average_view_percentage));
  return v_row;
end;
$$;

revoke all on function mdame.record_video_analytics(uuid,integer,date,date,bigint,bigint,numeric,numeric,bigint,jsonb,bigint) from public, anon, authenticated;
grant execute on function mdame.record_video_analytics(uuid,integer,date,date,bigint,bigint,numeric,numeric,bigint,jsonb,bigint) to mdame_engine;
grant execute on function mdame.record_video_analytics(uuid,integer,date,date,bigint,bigint,numeric,numeric,bigint,jsonb,bigint) to service_role;

-- A fetch that could not record its figures this time: with p_give_up false its message becomes
-- visible again p_delay_s seconds from now (pgmq.set_vt; 1 s .. 7 days) and the reason is kept;
-- with p_give_up true the fetch is given up for good: marked given_up, its message archived and an
-- event analytics_fetch_given_up recorded. A fetch no longer queued is returned unchanged (a late
-- or repeated call). An unknown fetch is MDN01; a bad delay or an empty reason 22023.

create or replace function mdame.retry_analytics_fetch(p_publication_id uuid, p_window_days integer, p_msg_id bigint,
  p_delay_s integer, p_reason text, p_give_up boolean default false)
returns mdame.analytics_fetches
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_fetch mdame.analytics_fetches;
  v_unit mdame.work_units;
begin
  if coalesce(btrim(p_reason), '') = '' then
    raise exception 'a reason is needed' using errcode = '22023';
  end if;
  if not coalesce(p_give_up, false) and (p_delay_s is null or p_delay_s < 1 or p_delay_s > 7 * 86400) then
    raise exception 'the delay must be 1 s .. 7 days, not %', coalesce(p_delay_s::text, '(none)') using errcode = '22023';
  end if;
  select * into v_fetch from mdame.analytics_fetches where publication_id = p_publication_id and window_days = p_window_days for update;
  if not found then
    raise exception 'no analytics fetch of publication % at % days', p_publication_id, p_window_days using errcode = 'MDN01';
  end if;
  if v_fetch.status <> 'queued' then
    return v_fetch;
  end if;
  if coalesce(p_give_up, false) then
    update mdame.analytics_fetches
       set status = 'given_up', finished_at = mdame.engine_now(), last_error = left(p_reason, 1000)
     where publication_id = p_publication_id and window_days = p_window_days
    returning * into v_fetch;
    perform pgmq.archive('analytics_fetches', p_msg_id);
    select u.* into v_unit from mdame.work_units u join mdame.publications p on p.unit_id = u.id where p.id = p_publication_id;
    perform mdame.log_event(v_unit.run_id, v_unit.id, 'analytics', 'analytics_fetch_given_up', jsonb_build_object(
      'publication_id', p_publication_id, 'window_days', p_window_days, 'attempts', v_fetch.attempts, 'reason', v_fetch.last_error));
    return v_fetch;
  end if;
  update mdame.analytics_fetches set last_error = left(p_reason, 1000)
   where publication_id = p_publication_id and window_days = p_window_days
  returning * into v_fetch;
  perform pgmq.set_vt('analytics_fetches', p_msg_id, p_delay_s);
  return v_fetch;
end;
$$;

revoke all on function mdame.retry_analytics_fetch(uuid,integer,bigint,integer,text,boolean) from public, anon, authenticated;
grant execute on function mdame.retry_analytics_fetch(uuid,integer,bigint,integer,text,boolean) to mdame_engine;
grant execute on function mdame.retry_analytics_fetch(uuid,integer,bigint,integer,text,boolean) to service_role;

-- Records the OAuth scopes an account's grant carries (the token answer's space-separated scope,
-- split), replacing those of an earlier grant: a connect makes a new grant. Sorted, without
-- duplicates; 1..50 scopes of 1..200 characters without spaces (22023 otherwise). MDN01 for an
-- unknown account.

create or replace function mdame.record_account_scopes(p_account_id uuid, p_scopes text[])
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  if p_scopes is null or cardinality(p_scopes) < 1 or cardinality(p_scopes) > 50
     or exists (select 1 from unnest(p_scopes) s where s is null or s !~ '^[^[:space:]]{1,200}$') then
    raise exception 'scopes must be 1..50 words of 1..200 characters without spaces' using errcode = '22023';
  end if;
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  update mdame.dimension_accounts
     set granted_scopes = (select array_agg(distinct s order by s) from unnest(p_scopes) s), updated_at = now()
   where id = p_account_id
  returning * into v_row;
  return v_row;
end;
$$;

revoke all on function mdame.record_account_scopes(uuid,text[]) from public, anon, authenticated;
grant execute on function mdame.record_account_scopes(uuid,text[]) to mdame_engine;
grant execute on function mdame.record_account_scopes(uuid,text[]) to service_role;

-- The YouTube Analytics figures fetched for a run's published videos: one row per publication and
-- window fetched, in unit and window order (none when nothing was fetched yet).

create or replace function mdame.get_run_analytics(p_run_id uuid)
returns table(unit_id uuid, publication_id uuid, external_id text, channel_handle text, window_days integer,
              views bigint, engaged_views bigint, average_view_percentage numeric, average_view_duration_s numeric,
              likes bigint, fetched_at timestamp with time zone)
language sql
stable security definer
set search_path = ''
as $$
  select u.id, p.id, p.external_id, a.channel_handle, v.window_days, v.views, v.engaged_views, v.average_view_percentage,
         v.average_view_duration_s, v.likes, v.fetched_at
    from mdame.work_units u
    join mdame.publications p on p.unit_id = u.id
    join mdame.dimension_accounts a on a.id = p.account_id
    join mdame.video_analytics v on v.publication_id = p.id
   where u.run_id = p_run_id
   order by u.created_at, u.id, p.id, v.window_days;
$$;

revoke all on function mdame.get_run_analytics(uuid) from public, anon, authenticated;
grant execute on function mdame.get_run_analytics(uuid) to mdame_engine;
grant execute on function mdame.get_run_analytics(uuid) to service_role;

do $$
begin
  if not exists (select 1 from cron.job where jobname = 'mdame-analytics-fetches') then
    perform cron.schedule('mdame-analytics-fetches', '0 * * * *', 'select mdame.schedule_analytics_fetches()');
  end if;
end
$$;

select mdame.restrict_function_privileges();
