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
    v_size := mdame.youtube_bucket_size(v_project, v_entry.bucket);
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
