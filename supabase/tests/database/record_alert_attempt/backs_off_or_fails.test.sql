begin;
\ir ../_fixtures.psql
select plan(7);

select mdame.raise_alert('dead_letter', null, 'k:1', 'first') as a1 \gset
select claim_token as t1 from mdame.claim_alerts(1, 60) \gset
select mdame.record_alert_attempt(:'a1', :'t1', 'HTTP 503', false);
select is((select status from mdame.alerts where id = :'a1'), 'pending', 'a transient failure keeps the alert pending');
select is((select round(extract(epoch from next_attempt_at - mdame.engine_now()))::int from mdame.alerts where id = :'a1'), 15,
          'due again after the first backoff step');
select is((select last_error from mdame.alerts where id = :'a1'), 'HTTP 503', 'with the error');

select mdame.set_engine_clock(interval '20 seconds');
select claim_token as t2 from mdame.claim_alerts(1, 60) \gset
select mdame.record_alert_attempt(:'a1', :'t2', 'Too Many Requests', false, 7);
select is((select round(extract(epoch from next_attempt_at - mdame.engine_now()))::int from mdame.alerts where id = :'a1'), 7,
          'a retry_after is waited out exactly');

update mdame.alerts set attempts = 40 where id = :'a1';
select mdame.set_engine_clock(interval '30 seconds');
select claim_token as t3 from mdame.claim_alerts(1, 60) \gset
select mdame.record_alert_attempt(:'a1', :'t3', 'connection refused', false);
select is((select round(extract(epoch from next_attempt_at - mdame.engine_now()))::int from mdame.alerts where id = :'a1'), 3600,
          'the backoff is capped at an hour, and the alert stays pending');

select mdame.set_engine_clock(interval '2 hours');
select claim_token as t4 from mdame.claim_alerts(1, 60) \gset
select is((mdame.record_alert_attempt(:'a1', :'t4', 'Bad Request: chat not found', true)).status, 'failed', 'a permanent refusal fails the alert');
select is((mdame.record_alert_attempt(:'a1', :'t4', 'again', false)).last_error, 'Bad Request: chat not found', 'a late call changes nothing');

select * from finish();
rollback;
