-- Marks a claimed weekly report ready with its JSON, Markdown and chart key, and raises its alert
-- ('weekly_report', dedupe key weekly_report:<dimension>:<week start>, the Markdown as its text, the
-- chart as its photo) in the same transaction: the operator hears of a report exactly when it is
-- stored. A caller that no longer holds the row (its lease ran out and another builder took it), or
-- a row already ready or failed, gets the row back unchanged.

create or replace function mdame.complete_weekly_report(p_id uuid, p_holder text, p_report jsonb, p_markdown text,
                                                        p_chart_key text, p_details jsonb default '{}'::jsonb)
returns mdame.weekly_reports
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row mdame.weekly_reports;
  v_now timestamptz := mdame.engine_now();
  v_alert uuid;
begin
  select * into v_row from mdame.weekly_reports where id = p_id for update;
  if not found then
    raise exception 'no weekly report %', p_id using errcode = 'MDN01';
  end if;
  if v_row.status <> 'pending' or v_row.lease_holder is distinct from p_holder then
    return v_row;
  end if;
  if p_report is null or jsonb_typeof(p_report) <> 'object' or p_markdown is null or btrim(p_markdown) = ''
     or p_chart_key is null or btrim(p_chart_key) = '' then
    raise exception 'a ready report needs its JSON, Markdown and chart key' using errcode = '22023';
  end if;
  v_alert := mdame.raise_alert('weekly_report', v_row.dimension_id,
                               'weekly_report:' || v_row.dimension_id || ':' || v_row.week_start,
                               p_markdown,
                               coalesce(p_details, '{}'::jsonb) || jsonb_build_object('report_id', v_row.id, 'week_start', v_row.week_start),
                               p_chart_key);
  update mdame.weekly_reports
     set status = 'ready', report = p_report, markdown = p_markdown, chart_key = p_chart_key, alert_id = v_alert,
         lease_holder = null, last_error = null, ready_at = v_now, updated_at = v_now
   where id = p_id
  returning * into v_row;
  return v_row;
end;
$$;
