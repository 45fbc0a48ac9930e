begin;
select plan(3);

select is(mdame.get_recorded_environment(), (select value from mdame.settings where key = 'env'),
          'the environment the database records is returned');
update mdame.settings set value = 'prod' where key = 'env';
select is(mdame.get_recorded_environment(), 'prod', 'as it is now, after a change');
delete from mdame.settings where key = 'env';
select is(mdame.get_recorded_environment(), null, 'a database that records none has no environment (not another setting''s value)');

select * from finish();
rollback;
