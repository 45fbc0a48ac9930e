begin;
\ir ../_fixtures.psql
select plan(2);

update mdame.dimension_accounts set active = false where channel_handle = '@tech-explained-demo';
create temp table a as select * from mdame.connect_account('tech-explained', 'youtube', '@tech-explained-demo', null);
select is((select active from a), false, 'a reconnect does not resume a paused account');
select is((select count(*)::int from mdame.dimension_accounts where channel_handle = '@tech-explained-demo'), 1, 'and adds no second account');

select * from finish();
rollback;
