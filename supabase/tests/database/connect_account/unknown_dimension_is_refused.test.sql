begin;
\ir ../_fixtures.psql
select plan(3);

select throws_ok($$select mdame.connect_account('no-such-dimension', 'youtube', '@x', null)$$, 'MDN01', null, 'an unknown dimension is refused');
select throws_ok($$select mdame.connect_account('tech-explained', 'youtube', '  ', null)$$, '22023', null, 'an empty handle is refused');
select is((select count(*)::int from mdame.dimension_accounts where channel_handle in ('@x', '  ')), 0, 'nothing is stored');

select * from finish();
rollback;
