begin;
\ir ../_fixtures.psql
select plan(4);

select is((select value from mdame.set_housekeeping_setting('render_retention_days', 7) where name = 'render_retention_days'), 7, 'a value in range is stored');
select throws_ok($$select mdame.set_housekeeping_setting('render_retention_days', 0)$$, 'MDV01', null, 'zero days is refused');
select throws_ok($$select mdame.set_housekeeping_setting('forever', 1)$$, 'MDV01', null, 'an unknown setting is refused');
select is((select value from mdame.set_housekeeping_setting('render_retention_days', null) where name = 'render_retention_days'), 14, 'null puts the default back');

select * from finish();
rollback;
