begin;
\ir ../_fixtures.psql
select plan(1);

select throws_ok($$select mdame.set_dimension_active('no-such-dimension', false)$$, 'MDN01', null, 'pausing an unknown dimension is refused');

select * from finish();
rollback;
