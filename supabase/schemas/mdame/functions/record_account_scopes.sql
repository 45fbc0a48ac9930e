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
