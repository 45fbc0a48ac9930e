-- pgmq queues: stage tasks drained by the pipeline Edge Function; visual_generation and render
-- pulled by the Bun workers. pgmq.create does nothing for a queue that exists.

select pgmq.create('render');
select pgmq.create('stage_tasks');
select pgmq.create('visual_generation');
