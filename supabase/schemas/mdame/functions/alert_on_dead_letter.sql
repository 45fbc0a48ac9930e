-- Producer: every dead letter (stage tasks and worker jobs alike go through retry_or_dead_letter)
-- raises an alert in the transaction that writes it. A render dead-lettered because its output
-- failed the quality gate on every attempt (the render runner's "quality gate failed: ..." error,
-- shared/media/quality-gate.ts describeFailures) is a quality_gate_failed alert instead.

create or replace function mdame.alert_on_dead_letter()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_unit mdame.work_units;
  v_quality boolean := new.queue_name = 'render' and position('quality gate failed:' in new.last_error) > 0;
begin
  if new.unit_id is not null then
    select * into v_unit from mdame.work_units where id = new.unit_id;
  end if;
  if v_quality then
    perform mdame.raise_alert(
      'quality_gate_failed', v_unit.dimension_id, 'quality_gate_failed:' || coalesce(new.unit_id::text, new.queue_name || ':' || new.msg_id),
      format('A render failed the quality gate on every attempt: %s', left(new.last_error, 500)),
      jsonb_build_object('unit_id', new.unit_id, 'run_id', v_unit.run_id, 'topic', v_unit.topic->>'title',
                         'attempts', new.read_ct, 'error', left(new.last_error, 1000), 'dead_letter_id', new.id));
  else
    perform mdame.raise_alert(
      'dead_letter', v_unit.dimension_id, 'dead_letter:' || new.queue_name || ':' || new.msg_id,
      format('A %s task was dead-lettered after %s attempt(s): %s', new.queue_name, new.read_ct, left(new.last_error, 500)),
      jsonb_build_object('queue', new.queue_name, 'msg_id', new.msg_id, 'dead_letter_id', new.id, 'unit_id', new.unit_id,
                         'run_id', v_unit.run_id, 'stage', new.payload->>'stage', 'attempts', new.read_ct,
                         'error', left(new.last_error, 1000), 'fix', format('mdame dlq retry %s', new.id)));
  end if;
  return new;
end;
$$;

comment on function mdame.alert_on_dead_letter() is 'internal: trigger raising dead_letter or quality_gate_failed for a new dead letter';

create trigger dead_letters_alert after insert on mdame.dead_letters
  for each row execute function mdame.alert_on_dead_letter();
