begin;
\ir ../_fixtures.psql
select plan(8);

update mdame.dimensions set alerts = '{"telegram_chat_id": "-100200300"}' where id = 'tech-explained';
select mdame.raise_alert('dead_letter', 'tech-explained', 'k:1', 'first') as a1 \gset
select mdame.raise_alert('run_failed', null, 'k:2', 'second') as a2 \gset
select mdame.set_engine_clock(interval '1 second');

create temp table claimed as select * from mdame.claim_alerts(10, 60);
select is((select count(*)::int from claimed), 2, 'both due alerts are claimed');
select is((select chat_id from claimed where id = :'a1'), '-100200300', 'an alert carries its dimension''s chat');
select is((select chat_id from claimed where id = :'a2'), null, 'an alert without a dimension takes the default chat');
select is((select attempts from mdame.alerts where id = :'a1'), 1, 'a claim counts one attempt');
select ok((select claim_token is not null from mdame.alerts where id = :'a1'), 'a claim holds a token');
select is((select count(*)::int from mdame.claim_alerts(10, 60)), 0, 'a leased alert is not claimed again');
select mdame.set_engine_clock(interval '2 minutes');
select is((select count(*)::int from mdame.claim_alerts(10, 60)), 2, 'after the lease an unrecorded claim is due again');
select throws_ok($$select * from mdame.claim_alerts(0, 60)$$, '22023', null, 'a limit out of range is refused');

select * from finish();
rollback;
