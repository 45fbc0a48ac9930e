begin;
\ir ../_fixtures.psql
select plan(5);

select mdame.raise_alert('dead_letter', null, 'k:1', 'first') as a1 \gset
select claim_token as t1 from mdame.claim_alerts(1, 60) \gset
select is((mdame.record_alert_sent(:'a1', gen_random_uuid(), '-1', '{7}')).status, 'pending', 'another claim''s token changes nothing');
select is((mdame.record_alert_sent(:'a1', :'t1', '-1', '{7,8}')).status, 'sent', 'the claimer records the send');
select is((select message_ids from mdame.alerts where id = :'a1'), '{7,8}'::bigint[], 'with the message ids in order');
select is((select chat_id from mdame.alerts where id = :'a1'), '-1', 'and the chat');
select is((mdame.record_alert_sent(:'a1', :'t1', '-2', '{9}')).chat_id, '-1', 'a repeated call returns the row unchanged');

select * from finish();
rollback;
