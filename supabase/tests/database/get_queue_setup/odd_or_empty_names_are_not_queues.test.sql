begin;
select plan(4);

select is((select queues from mdame.get_queue_setup(array[]::text[])), array[]::text[], 'asking for no queue lists none');
select is((select queues from mdame.get_queue_setup(null)), array[]::text[], 'nor does asking with no list');
select is((select queues from mdame.get_queue_setup(array['render"; drop table pgmq.q_render; --', 'Render', ''])), array[]::text[],
          'a quoted, differently cased or empty name is not a queue, and does not fail the check');
select ok(to_regclass('pgmq.q_render') is not null, 'the render queue is still there');

select * from finish();
rollback;
