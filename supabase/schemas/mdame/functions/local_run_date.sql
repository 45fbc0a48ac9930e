-- A dimension's run date at p_at: the date in the time zone its production start is set in
-- (mdame.run_schedule), the date the scheduled trigger starts its runs on. Every trigger dates a
-- dimension's run by it, so the daily limit (record_topics) counts one local day whatever started it.

create or replace function mdame.local_run_date(p_publishing jsonb, p_at timestamp with time zone)
returns date
language plpgsql
stable
set search_path = ''
as $$
begin
  return (select (p_at at time zone s.time_zone)::date from mdame.run_schedule(p_publishing) s);
end;
$$;

comment on function mdame.local_run_date(jsonb, timestamp with time zone) is 'internal: a dimension''s run date at a time, read by the triggers';
