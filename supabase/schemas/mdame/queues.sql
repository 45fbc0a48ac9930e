select pgmq.create('render');
select pgmq.create('stage_tasks');
select pgmq.create('visual_generation');
