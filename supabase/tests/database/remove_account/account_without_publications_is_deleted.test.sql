begin;
\ir ../_fixtures.psql
select plan(3);

create temp table a as select * from mdame.connect_account('tech-explained', 'youtube', '@to-remove', null);
select is(mdame.remove_account((select id from a)), jsonb_build_object('account_id', (select id from a), 'deleted', true, 'publications', 0),
          'an account that never published is deleted');
select is((select count(*)::int from mdame.dimension_accounts where id = (select id from a)), 0, 'its row is gone');
select throws_ok(format('select mdame.remove_account(%L)', (select id from a)), 'MDN01', null, 'removing it again is refused');

select * from finish();
rollback;
