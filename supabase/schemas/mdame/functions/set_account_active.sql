-- Pauses (p_active = false) or resumes an account: publishing skips a paused account.

create or replace function mdame.set_account_active(p_account_id uuid, p_active boolean)
returns mdame.dimension_accounts
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.dimension_accounts;
begin
  select * into v_row from mdame.dimension_accounts where id = p_account_id for update;
  if v_row.id is null then
    raise exception 'no account %', p_account_id using errcode = 'MDN01';
  end if;
  if v_row.active is distinct from p_active then
    update mdame.dimension_accounts set active = p_active, updated_at = now() where id = p_account_id returning * into v_row;
  end if;
  return v_row;
end;
$$;
