-- When the voice and every scene are ready, enqueue the one render job and move the unit to render.

create or replace function mdame.enqueue_render_if_ready(p_unit_id uuid)
returns mdame.work_units
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
begin
  select * into v_unit from mdame.work_units where id = p_unit_id for update;
  if v_unit.stage <> 'media' or v_unit.voice is null
     or not exists (select 1 from mdame.scenes where unit_id = p_unit_id)
     or exists (select 1 from mdame.scenes where unit_id = p_unit_id and status <> 'ready') then
    return v_unit;
  end if;
  perform pgmq.send('render', mdame.render_job(p_unit_id));
  return mdame.set_unit_stage(p_unit_id, 'render');
end;
$$;

comment on function mdame.enqueue_render_if_ready(uuid) is 'internal: sends the render job once every asset is recorded';
