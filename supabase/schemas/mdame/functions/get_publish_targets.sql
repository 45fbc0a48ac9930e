-- Active accounts of the unit's dimension, with their sealed credentials (decrypted in the caller's
-- memory only), their health (an account that needs reconnecting is deferred without a call) and
-- the platform's id of the channel (Instagram: the IG user id; Facebook: the Page id).

create or replace function mdame.get_publish_targets(p_unit_id uuid)
returns table(account_id uuid, platform text, channel_handle text, credentials_enc text, health_state text, channel_id text)
language sql
stable security definer
set search_path = ''
as $$
  select a.id, a.platform, a.channel_handle, a.credentials_enc, a.health_state, a.channel_id
    from mdame.work_units u
    join mdame.dimension_accounts a on a.dimension_id = u.dimension_id and a.active
   where u.id = p_unit_id
   order by a.id;
$$;
