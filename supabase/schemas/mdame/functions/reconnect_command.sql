-- The command that connects an account again, as an operator types it (cli/commands/account.ts's
-- reconnectCommand says the same): YouTube and TikTok name the channel's handle, Instagram the
-- account's @username, Facebook the Page's id.

create or replace function mdame.reconnect_command(p_account mdame.dimension_accounts)
returns text
language sql
immutable
set search_path = ''
as $$
  select format('mdame account connect %s --dimension %s %s', p_account.platform, p_account.dimension_id,
    case p_account.platform
      when 'instagram' then '--page ' || p_account.channel_handle
      when 'facebook' then '--page ' || coalesce(p_account.channel_id, p_account.channel_handle)
      else '--channel ' || p_account.channel_handle
    end);
$$;

comment on function mdame.reconnect_command(mdame.dimension_accounts) is 'internal: the reconnect command of mark_account_needs_reconnect''s event and alert_on_needs_reconnect''s alert';
