-- Claims up to p_qty visible messages of the analytics_fetches queue for p_vt_s seconds (pgmq.read)
-- and answers what a fetch needs: the publication's platform and video, when it was published, its account and
-- sealed credentials, and the engine's clock (to turn a not-before instant into a delay). Each claim counts one attempt on the fetch's row. A message whose fetch is no
-- longer queued (fetched or given up meanwhile) or unknown is archived and not returned.

create or replace function mdame.claim_analytics_fetches(p_qty integer, p_vt_s integer)
returns table(msg_id bigint, read_ct integer, publication_id uuid, platform text, window_days integer, attempts integer,
              external_id text, published_at timestamp with time zone, unit_id uuid, run_id uuid,
              account_id uuid, dimension_id text, channel_handle text, channel_id text, oauth_client_id text,
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
      select v_msg.msg_id, v_msg.read_ct, p.id, p.platform, v_fetch.window_days, v_fetch.attempts + 1, p.external_id, p.published_at,
             u.id, u.run_id, a.id, a.dimension_id, a.channel_handle, a.channel_id, a.oauth_client_id, a.credentials_enc,
             a.active and a.health_state = 'ok' and a.credentials_enc is not null, mdame.engine_now()
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       where p.id = v_fetch.publication_id;
  end loop;
end;
$$;
