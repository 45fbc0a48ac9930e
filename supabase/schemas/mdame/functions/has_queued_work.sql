create or replace function mdame.has_queued_work(p_queue text, p_unit_id uuid, p_stage text default null::text)
returns boolean
language plpgsql
stable
set search_path = ''
as $$
declare
  v boolean;
begin
  execute format('select exists (select 1 from pgmq.%I where message->>''unit_id'' = $1 and ($2::text is null or message->>''stage'' = $2))', 'q_' || p_queue)
    into v using p_unit_id::text, p_stage;
  return v;
end;
$$;

comment on function mdame.has_queued_work(text,uuid,text) is 'internal: the tick''s wake decision';

revoke all on function mdame.has_queued_work(text,uuid,text) from public, anon, authenticated;
