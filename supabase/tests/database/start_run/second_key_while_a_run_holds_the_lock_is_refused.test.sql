begin;
\ir ../_fixtures.psql
select plan(2);

select lives_ok($$ select * from mdame.start_run('k-one', 'dev', 'manual', current_date, null) $$, 'the first run starts');
select throws_ok($$ select * from mdame.start_run('k-two', 'dev', 'cron', current_date, null) $$,
                 'MDL01', null, 'another run cannot start while the first holds the lock');

select * from finish();
rollback;
