begin;
\ir ../_fixtures.psql
select plan(3);

select mdame.record_webhook('msg_replayed', 'render.completed');
select is(mdame.record_webhook('msg_replayed', 'render.failed'), false, 'a webhook-id already seen is reported as a replay');
select is((select count(*) from mdame.webhook_receipts where webhook_id = 'msg_replayed'), 1::bigint, 'one receipt');
select is((select kind from mdame.webhook_receipts where webhook_id = 'msg_replayed'), 'render.completed', 'keeping the first delivery''s kind');

select * from finish();
rollback;
