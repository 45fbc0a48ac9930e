begin;
\ir ../_fixtures.psql
select plan(4);

-- pgmq 1.5 carries headers with a message; pgmq 1.4 has no headers column. The task is sent the way
-- the queue's pgmq version allows, and the archive must keep whatever columns the queue has.
create temp table shape as select mdame.pgmq_queue_has_headers('stage_tasks') as has_headers;
create temp table u as select * from tests.unit_at_stage('script');
create temp table m (msg_id bigint);
do $$
begin
  if (select has_headers from shape) then
    execute $q$insert into m select pgmq.send('stage_tasks'::text, jsonb_build_object('stage', 'script', 'unit_id', (select id from u)),
                                              '{"traceparent": "00-abc-def-01"}'::jsonb, 0::integer)$q$;
  else
    execute $q$insert into m select pgmq.send('stage_tasks'::text, jsonb_build_object('stage', 'script', 'unit_id', (select id from u)), 0::integer)$q$;
  end if;
end $$;
create temp table original as select to_jsonb(q) as row from pgmq.q_stage_tasks q where q.msg_id = (select msg_id from m);

select is(mdame.archive_stage_task((select msg_id from m)), true, 'a queued task is archived');
select is((select to_jsonb(a) - 'archived_at' from pgmq.a_stage_tasks a where a.msg_id = (select msg_id from m)),
          (select row from original), 'with every column of its queue row, as it was');
select is((select to_jsonb(a) ? 'headers' from pgmq.a_stage_tasks a where a.msg_id = (select msg_id from m)),
          (select has_headers from shape), 'the archive has a headers column exactly when the queue does');
select is((select to_jsonb(a) -> 'headers' from pgmq.a_stage_tasks a where a.msg_id = (select msg_id from m)),
          case when (select has_headers from shape) then '{"traceparent": "00-abc-def-01"}'::jsonb end,
          'on pgmq 1.5 the headers are kept');

select * from finish();
rollback;
