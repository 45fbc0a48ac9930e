-- pgmq queues: stage tasks drained by the pipeline Edge Function; visual_generation and render
-- pulled by the Bun workers; analytics_fetches (YouTube Analytics fetches of published videos) drained by
-- the pipeline's tick after its stage tasks. pgmq.create does nothing for a queue that exists.

select pgmq.create('render');
select pgmq.create('stage_tasks');
select pgmq.create('visual_generation');
select pgmq.create('analytics_fetches');
