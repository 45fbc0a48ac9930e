-- Reserves one YouTube call before it is made: its cost (mdame.youtube_call_costs) from the bucket
-- (uploads, Data API units, videos.batchGetStats units, or the Analytics API's own queries)
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

  v_size := mdame.youtube_bucket_size(v_project, v_cost.bucket);
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
