begin;
\ir ../_fixtures.psql
select plan(6);

select id as unit from tests.unit_at_stage('deferred') \gset
insert into mdame.publications (unit_id, account_id, platform, status, deferred_reason)
select :'unit', id, 'youtube', 'deferred', 'quota_spent' from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'
returning id as pub \gset
select ok((select deferred_since is not null from mdame.publications where id = :'pub'), 'a deferral records since when');
select is((mdame.check_alerts())->>'stale_deferrals', '0', 'a fresh deferral raises nothing');
select mdame.set_engine_clock(interval '25 hours');
select is((mdame.check_alerts())->>'stale_deferrals', '1', 'a deferral older than a day raises an alert');
select is((select kind || ' ' || dimension_id from mdame.alerts where dedupe_key = 'quota_deferral_stale:' || :'pub'),
          'quota_deferral_stale tech-explained', 'for the publication''s dimension');
select mdame.set_engine_clock(interval '40 hours');
select is((mdame.check_alerts())->>'stale_deferrals', '0', 'once per publication, even after the dedupe window');
update mdame.publications set status = 'published' where id = :'pub';
select is((select deferred_since from mdame.publications where id = :'pub'), null, 'leaving deferred clears the time');

select * from finish();
rollback;
