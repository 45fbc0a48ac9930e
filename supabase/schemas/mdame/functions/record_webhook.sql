-- Records a webhook delivery; false when that webhook-id was already seen (a replay).

create or replace function mdame.record_webhook(p_webhook_id text, p_kind text)
returns boolean
language plpgsql
set search_path = ''
as $$
begin
  insert into mdame.webhook_receipts (webhook_id, kind) values (p_webhook_id, p_kind) on conflict do nothing;
  return found;
end;
$$;

comment on function mdame.record_webhook(text,text) is 'internal: replay refusal of the worker callbacks, inside their RPCs';
