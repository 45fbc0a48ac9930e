-- Producer: a publication whose platform gave it another privacy than the engine asked for (YouTube
-- locking an upload private, TikTok posting SELF_ONLY while public was asked) raises upload_locked in
-- the transaction that records it (record_publication_privacy, or any other writer), once per
-- publication. mdame doctor lists the same publications (list_locked_publications).

create or replace function mdame.alert_on_locked_publication()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_account mdame.dimension_accounts;
  v_asked text := coalesce(new.privacy_requested, 'public');
begin
  if tg_op = 'UPDATE' and old.privacy_status is not distinct from new.privacy_status
     or exists (select 1 from mdame.alerts a where a.dedupe_key = 'upload_locked:' || new.id) then
    return new;
  end if;
  select * into v_account from mdame.dimension_accounts where id = new.account_id;
  perform mdame.raise_alert(
    'upload_locked', v_account.dimension_id, 'upload_locked:' || new.id,
    format('The %s upload %s on %s is %s, not %s as asked: %s', new.platform, coalesce(new.external_id, '(no id yet)'),
           v_account.channel_handle, new.privacy_status, v_asked,
           case new.platform
             when 'tiktok' then 'TikTok lets an app it has not audited post only privately (SELF_ONLY); its viewers cannot see it'
             else 'the platform kept it from the public (the project''s status, the channel''s settings or its own review)' end),
    jsonb_build_object('publication_id', new.id, 'platform', new.platform, 'channel_handle', v_account.channel_handle,
                       'external_id', new.external_id, 'privacy_status', new.privacy_status, 'privacy_requested', v_asked,
                       'fix', 'mdame doctor (docs/reference/distribution.md says what each platform needs for public posts)'));
  return new;
end;
$$;

comment on function mdame.alert_on_locked_publication() is 'internal: trigger raising upload_locked when a publication''s privacy differs from the one asked';

create trigger publications_alert_locked after insert or update of privacy_status on mdame.publications
  for each row when (new.privacy_status is not null and new.privacy_status is distinct from coalesce(new.privacy_requested, 'public'))
  execute function mdame.alert_on_locked_publication();
