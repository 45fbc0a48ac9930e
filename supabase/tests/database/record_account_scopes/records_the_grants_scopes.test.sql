begin;
\ir ../_fixtures.psql
select plan(4);

select is((select granted_scopes from mdame.record_account_scopes(tests.account_of('tech-explained'),
  array['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/yt-analytics.readonly', 'https://www.googleapis.com/auth/youtube.upload'])),
  array['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/yt-analytics.readonly'],
  'the scopes are stored sorted, once each');
select is((select granted_scopes from mdame.record_account_scopes(tests.account_of('tech-explained'), array['https://www.googleapis.com/auth/youtube.upload'])),
  array['https://www.googleapis.com/auth/youtube.upload'], 'a new grant replaces the old one');
select is((select code from tests.refusal(format('select mdame.record_account_scopes(%L, %L::text[])', tests.account_of('tech-explained'), '{"two words"}'))),
  '22023', 'a scope with a space is refused');
select is((select code from tests.refusal(format('select mdame.record_account_scopes(%L, %L::text[])', gen_random_uuid(), '{a}'))),
  'MDN01', 'an unknown account is refused');

select * from finish();
rollback;
