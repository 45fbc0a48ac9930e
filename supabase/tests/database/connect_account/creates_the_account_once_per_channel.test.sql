begin;
\ir ../_fixtures.psql
select plan(4);

create temp table a as select * from mdame.connect_account('tech-explained', 'youtube', '@new-channel', 'UCabcdefghijklmnopqrstuv');
select is((select (dimension_id, channel_handle, channel_id, active) from a),
          ('tech-explained'::text, '@new-channel'::text, 'UCabcdefghijklmnopqrstuv'::text, true), 'a new channel gets an active account');
select is((select credentials_enc from a), null, 'without credentials until they are stored');

create temp table again as select * from mdame.connect_account('tech-explained', 'youtube', '@new-channel', null);
select is((select id from again), (select id from a), 'connecting the same channel again is the same account');
select is((select channel_id from again), 'UCabcdefghijklmnopqrstuv', 'and keeps the channel id it had');

select * from finish();
rollback;
