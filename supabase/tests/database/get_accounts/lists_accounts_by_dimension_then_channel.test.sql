begin;
\ir ../_fixtures.psql
select plan(5);

-- A second channel of tech-explained whose handle sorts before the fixture's, added after it.
insert into mdame.dimension_accounts (dimension_id, platform, channel_handle, active)
values ('tech-explained', 'youtube', '@a-second-channel', false);

select is((select array_agg(channel_handle order by ordinality) from mdame.get_accounts('tech-explained') with ordinality),
          array['@a-second-channel', '@tech-explained-demo'], 'a dimension''s accounts come by channel handle, not by when they were added');
select is((select array_agg(active order by ordinality) from mdame.get_accounts('tech-explained') with ordinality),
          array[false, true], 'an inactive account is listed too, with its flag (the operator sees and can reactivate it)');
select is((select array_agg(dimension_id || '/' || channel_handle order by ordinality) from mdame.get_accounts() with ordinality),
          (select array_agg(dimension_id || '/' || channel_handle order by dimension_id, platform, channel_handle) from mdame.dimension_accounts),
          'without a filter every account is listed, by dimension then channel');
select is((select array_agg(dimension_id) from mdame.get_accounts('sains-singkat')), array['sains-singkat'],
          'a dimension filter leaves out the other dimensions'' accounts');
select is((select row(dimension_id, platform, channel_handle, oauth_client_id, upload_cap_24h, health_state, active)::text
             from mdame.get_accounts(p_id => tests.account_of('sains-singkat'))),
          row('sains-singkat', 'youtube', '@sains-singkat-demo', 'default', 15, 'ok', true)::text,
          'an account id picks that one account, with its channel, project, upload cap, health and state');

select * from finish();
rollback;
