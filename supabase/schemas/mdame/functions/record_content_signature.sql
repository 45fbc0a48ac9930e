-- Stores the signature of a unit that passed the channel-standing guard (mdame.content_signatures),
-- under the accepted script's title; p_signature is a ContentSignature (shared/contracts/similarity.ts).
-- A dimension keeps its 500 latest signatures (the most compare_last may ask for): older ones are
-- deleted as a new one arrives, so the table holds at most 500 rows (about 800 kB) per dimension.

create or replace function mdame.record_content_signature(p_unit_id uuid, p_signature jsonb)
returns void
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
begin
  if jsonb_typeof(p_signature->'title') is distinct from 'array' or jsonb_typeof(p_signature->'hook') is distinct from 'array'
     or jsonb_typeof(p_signature->'script') is distinct from 'array' or jsonb_typeof(p_signature->'scene_hashes') is distinct from 'array' then
    raise exception 'a content signature has title, hook, script and scene_hashes arrays' using errcode = 'MDS01';
  end if;
  select * into v_unit from mdame.work_units where id = p_unit_id;
  insert into mdame.content_signatures as s (unit_id, dimension_id, title, title_minhash, hook_minhash, script_minhash, scene_hashes)
  values (p_unit_id, v_unit.dimension_id, coalesce(v_unit.script->>'title', ''),
          array(select x::integer from jsonb_array_elements_text(p_signature->'title') x),
          array(select x::integer from jsonb_array_elements_text(p_signature->'hook') x),
          array(select x::integer from jsonb_array_elements_text(p_signature->'script') x),
          array(select x from jsonb_array_elements_text(p_signature->'scene_hashes') x))
  on conflict (unit_id) do update
    set title = excluded.title, title_minhash = excluded.title_minhash, hook_minhash = excluded.hook_minhash,
        script_minhash = excluded.script_minhash, scene_hashes = excluded.scene_hashes, created_at = now();
  delete from mdame.content_signatures s
   where s.dimension_id = v_unit.dimension_id
     and s.unit_id in (select o.unit_id from mdame.content_signatures o where o.dimension_id = v_unit.dimension_id
                        order by o.created_at desc, o.unit_id offset 500);
end;
$$;

comment on function mdame.record_content_signature(uuid,jsonb) is 'internal: stores the guard''s signature of a unit the caller has locked';
