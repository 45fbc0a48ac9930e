begin;
\ir ../_fixtures.psql
select plan(2);

select is(mdame.record_webhook('msg_first', 'render.completed'), true, 'a new webhook-id is accepted');
select is((select kind from mdame.webhook_receipts where webhook_id = 'msg_first'), 'render.completed', 'its receipt is stored with its kind');

select * from finish();
rollback;
