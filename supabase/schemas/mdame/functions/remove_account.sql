-- Removes an account. One that has published (or has calls in the quota ledger) keeps its row as the record of
-- those publications, with its credentials erased and publishing stopped; any other is deleted.

create or replace function mdame.remove_account(p_account_id uuid)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
  v_publications integer;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  select count(*) into v_publications from mdame.publications where account_id = p_account_id;
  if v_publications > 0 or exists (select 1 from mdame.quota_ledger where account_id = p_account_id) then
    update mdame.dimension_accounts
       set credentials_enc = null, active = false, connected_at = null, updated_at = now()
     where id = p_account_id;
    return jsonb_build_object('account_id', p_account_id, 'deleted', false, 'publications', v_publications);
  end if;
  delete from mdame.dimension_accounts where id = p_account_id;
  return jsonb_build_object('account_id', p_account_id, 'deleted', true, 'publications', 0);
end;
$$;
