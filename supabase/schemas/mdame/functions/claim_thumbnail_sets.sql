-- Claims up to p_qty visible messages of the thumbnail_sets queue for p_vt_s seconds (pgmq.read)
-- and answers what a set needs: the publication's video, the cover's Storage key, its account and
-- sealed credentials, and the engine's clock. Each claim counts one attempt on the set's row. A
-- message whose set is no longer queued (set or given up meanwhile) or unknown is archived and not
-- returned.

create or replace function mdame.claim_thumbnail_sets(p_qty integer, p_vt_s integer)
returns table(msg_id bigint, publication_id uuid, attempts integer, external_id text, cover_key text,
              unit_id uuid, run_id uuid, account_id uuid, dimension_id text, channel_handle text,
              credentials_enc text, account_ready boolean, engine_now timestamp with time zone)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_msg record;
  v_set mdame.thumbnail_sets;
begin
  if p_qty is null or p_qty < 1 or p_qty > 100 or p_vt_s is null or p_vt_s < 1 or p_vt_s > 3600 then
    raise exception 'claim 1..100 thumbnail sets for 1..3600 seconds (asked % for %)', p_qty, p_vt_s using errcode = '22023';
  end if;
  for v_msg in select m.msg_id, m.message from pgmq.read('thumbnail_sets', p_vt_s, p_qty) m order by m.msg_id
  loop
    v_set := null;
    begin
      select * into v_set from mdame.thumbnail_sets t where t.publication_id = (v_msg.message->>'publication_id')::uuid for update;
    exception when invalid_text_representation then
      v_set := null;
    end;
    if v_set.publication_id is null or v_set.status <> 'queued' then
      perform pgmq.archive('thumbnail_sets', v_msg.msg_id);
      continue;
    end if;
    update mdame.thumbnail_sets t set attempts = t.attempts + 1, msg_id = v_msg.msg_id where t.publication_id = v_set.publication_id;
    return query
      select v_msg.msg_id, p.id, v_set.attempts + 1, p.external_id, v_set.cover_key, u.id, u.run_id, a.id, a.dimension_id,
             a.channel_handle, a.credentials_enc, a.active and a.health_state = 'ok' and a.credentials_enc is not null, mdame.engine_now()
        from mdame.publications p
        join mdame.work_units u on u.id = p.unit_id
        join mdame.dimension_accounts a on a.id = p.account_id
       where p.id = v_set.publication_id;
  end loop;
end;
$$;
