begin;
\ir ../_fixtures.psql
select plan(3);

select throws_ok($$select mdame.update_dimension('no-such-dimension', '{"daily_limit": 1}'::jsonb)$$, 'MDN01', null, 'an unknown dimension is refused');
select throws_ok($$select mdame.update_dimension('tech-explained', '{"id": "renamed"}'::jsonb)$$, 'MDS01', null, 'an id cannot change');
select is((select count(*)::int from mdame.dimensions where id = 'renamed'), 0, 'nothing is renamed');

select * from finish();
rollback;
