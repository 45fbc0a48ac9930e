-- JSON with object keys in code-point order at every depth and no insignificant space: the same
-- text shared/hashing.ts canonicalJson writes for the same value.

create or replace function mdame.canonical_json(p_value jsonb)
returns text
language plpgsql
immutable security definer
set search_path = ''
as $$
begin
  case jsonb_typeof(p_value)
    when 'object' then
      return '{' || coalesce((select string_agg(to_jsonb(e.key)::text || ':' || mdame.canonical_json(e.value), ',' order by e.key collate "C")
                                from jsonb_each(p_value) e), '') || '}';
    when 'array' then
      return '[' || coalesce((select string_agg(mdame.canonical_json(a.value), ',' order by a.ord)
                                from jsonb_array_elements(p_value) with ordinality a(value, ord)), '') || ']';
    else
      return p_value::text;
  end case;
end;
$$;
