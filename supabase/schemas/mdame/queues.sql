-- pgmq queues: stage tasks drained by the pipeline Edge Function; visual_generation and render
-- pulled by the Bun workers; analytics_fetches (YouTube Analytics fetches of published videos) and
-- thumbnail_sets (their Shorts thumbnails) drained by the pipeline's tick after its stage tasks. pgmq.create does nothing for a queue that exists.

select pgmq.create('render');
select pgmq.create('stage_tasks');
select pgmq.create('visual_generation');
select pgmq.create('analytics_fetches');
select pgmq.create('thumbnail_sets');

-- The recovery pass finds a unit's queued work by its unit id (mdame.queued_work_state,
-- cancel_queued_work) and the tick finds worker jobs read past their limit by read count: indexes,
-- so both cost what they find, not the length of the queue.
create index if not exists q_stage_tasks_unit_id_idx on pgmq.q_stage_tasks ((message->>'unit_id'));
create index if not exists q_visual_generation_unit_id_idx on pgmq.q_visual_generation ((message->>'unit_id'));
create index if not exists q_render_unit_id_idx on pgmq.q_render ((message->>'unit_id'));
create index if not exists q_visual_generation_read_ct_idx on pgmq.q_visual_generation (read_ct);
create index if not exists q_render_read_ct_idx on pgmq.q_render (read_ct);
