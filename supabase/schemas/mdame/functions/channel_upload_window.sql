-- A channel's uploads in the rolling 24 hours before p_at, as the ledger counts them (calls reserved
-- or settled, not released), and when the oldest of them ages out of the window.

create or replace function mdame.channel_upload_window(p_account_id uuid, p_at timestamp with time zone, out uploads integer, out oldest_ages_out timestamp with time zone)
returns record
language sql
stable
set search_path = ''
as $$
  select count(*)::integer, min(l.created_at) + interval '24 hours'
    from mdame.quota_ledger l
   where l.account_id = p_account_id and l.entry = 'call' and l.call_kind = 'videos.insert'
     and l.status <> 'released' and l.created_at > p_at - interval '24 hours';
$$;

comment on function mdame.channel_upload_window(uuid,timestamp with time zone) is 'internal: the channel''s uploads in the rolling 24-hour window';
