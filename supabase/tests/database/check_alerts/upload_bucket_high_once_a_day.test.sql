begin;
\ir ../_fixtures.psql
select plan(5);

delete from mdame.quota_ledger;
select tests.past_uploads(tests.account_of('tech-explained'), 80, interval '1 second');
select is((mdame.check_alerts())->>'upload_buckets_high', '0', '80 of 100 uploads is not past 80 %');
select tests.past_uploads(tests.account_of('tech-explained'), 1, interval '1 second');
select is((mdame.check_alerts())->>'upload_buckets_high', '1', 'the 81st is');
select is((select kind || ' ' || (details->>'used') || '/' || (details->>'limit') from mdame.alerts where kind = 'quota_bucket_high'),
          'quota_bucket_high 81/100', 'the alert gives what was used of the bucket');
select matches((select summary from mdame.alerts where kind = 'quota_bucket_high'), '^Google project default has used 81 of its 100 uploads for the quota day .* \(81 %\)',
               'and names the project');
select tests.past_uploads(tests.account_of('tech-explained'), 1, interval '1 second');
select is((mdame.check_alerts())->>'upload_buckets_high', '0', 'once per project and quota day');

select * from finish();
rollback;
