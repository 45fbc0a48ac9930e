begin;
\ir ../_fixtures.psql
select plan(3);

create temp table ig as select (mdame.connect_account('tech-explained', 'instagram', '@sky_facts', '17841400000000001', '100000000000001')).id;
create temp table fb as select (mdame.connect_account('tech-explained', 'facebook', 'Sky-Facts', '100000000000777', '100000000000001')).id;
select mdame.mark_account_needs_reconnect((select id from ig), 'Meta refused the account''s token (code 190/460)');
select mdame.mark_account_needs_reconnect((select id from fb), 'Meta refused the account''s token (code 190/460)');
select mdame.mark_account_needs_reconnect((select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'), 'invalid_grant');

select is((select detail->>'fix' from mdame.events where kind = 'account_needs_reconnect' and detail->>'account_id' = (select id::text from ig)),
  'mdame account connect instagram --dimension tech-explained --page @sky_facts', 'an Instagram account is named by its @username');
select is((select detail->>'fix' from mdame.events where kind = 'account_needs_reconnect' and detail->>'account_id' = (select id::text from fb)),
  'mdame account connect facebook --dimension tech-explained --page 100000000000777', 'a Page by its id');
select is((select details->>'fix' from mdame.alerts where dedupe_key = 'needs_reconnect:' || (select id from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'))
  , 'mdame account connect youtube --dimension tech-explained --channel @tech-explained-demo', 'a YouTube channel by its handle, in the alert too');

select * from finish();
rollback;
