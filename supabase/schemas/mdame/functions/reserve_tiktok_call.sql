-- Takes a TikTok API call's place in the account's rate window (mdame.tiktok_rate_limits) before it
-- is made, on the engine's clock. The account row is locked first, so two publishers of one
-- account are served one after the other. A full window is refused with MDQ04, its DETAIL a JSON
-- object with not_before: when the oldest call of the window ages out. Calls older than a day are
-- pruned as the account makes new ones.

create or replace function mdame.reserve_tiktok_call(p_account_id uuid, p_call_kind text)
returns mdame.tiktok_calls
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_limit mdame.tiktok_rate_limits;
  v_account mdame.dimension_accounts;
  v_now timestamptz := mdame.engine_now();
  v_count integer;
  v_oldest timestamptz;
  v_call mdame.tiktok_calls;
begin
  select * into v_limit from mdame.tiktok_rate_limits where call_kind = p_call_kind;
  if not found then
    raise exception 'no TikTok call kind %', p_call_kind using errcode = 'MDN01';
  end if;
  select * into v_account from mdame.dimension_accounts where id = p_account_id for update;
  if not found then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_account.platform <> 'tiktok' then
    raise exception 'account % is on %, not on TikTok', p_account_id, v_account.platform using errcode = '22023';
  end if;
  select count(*)::integer, min(created_at) into v_count, v_oldest from mdame.tiktok_calls
   where account_id = p_account_id and call_kind = p_call_kind
     and created_at > v_now - make_interval(secs => v_limit.per_seconds);
  if v_count >= v_limit.calls then
    raise exception 'TikTok account % made % % calls in the last % s (limit %)',
      v_account.channel_handle, v_count, p_call_kind, v_limit.per_seconds, v_limit.calls
      using errcode = 'MDQ04',
            detail = jsonb_build_object('not_before', v_oldest + make_interval(secs => v_limit.per_seconds),
                                        'call_kind', p_call_kind, 'calls', v_count, 'limit', v_limit.calls)::text;
  end if;
  delete from mdame.tiktok_calls where account_id = p_account_id and created_at < v_now - interval '1 day';
  insert into mdame.tiktok_calls (account_id, call_kind, created_at) values (p_account_id, p_call_kind, v_now)
  returning * into v_call;
  return v_call;
end;
$$;
