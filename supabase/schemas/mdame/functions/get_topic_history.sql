create or replace function mdame.get_topic_history(p_dimension_id text, p_limit integer)
returns table(title text, fingerprint text)
language sql
stable security definer
set search_path = ''
as $$
  select coalesce(topic->>'title', ''), topic_fingerprint
    from mdame.work_units where dimension_id = p_dimension_id
   order by created_at desc limit least(greatest(coalesce(p_limit, 0), 0), 1000);
$$;
