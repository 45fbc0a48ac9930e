-- Whether p_holder is the current claim of a stage task read p_read_ct times: claim_stage_tasks
-- names each claim <worker>/<msg_id>/<read_ct>, so a claim from an earlier read no longer matches.

create or replace function mdame.holds_stage_claim(p_holder text, p_msg_id bigint, p_read_ct integer)
returns boolean
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_suffix text := '/' || p_msg_id || '/' || p_read_ct;
begin
  return p_holder is not null and length(p_holder) > length(v_suffix) and right(p_holder, length(v_suffix)) = v_suffix;
end;
$$;

comment on function mdame.holds_stage_claim(text,bigint,integer) is 'internal: lease check of the stage RPCs';
