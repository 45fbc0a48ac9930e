begin;
\ir ../_fixtures.psql
select plan(4);

select is(mdame.set_adaptation_pin('tech-explained', 'hook_threshold', true), '["hook_threshold"]'::jsonb, 'pinned');
select is(mdame.set_adaptation_pin('tech-explained', 'hook_threshold', true), '["hook_threshold"]'::jsonb, 'pinning twice changes nothing');
select is(mdame.set_adaptation_pin('tech-explained', 'hook_threshold', false), '[]'::jsonb, 'unpinned');
select throws_ok($$select mdame.set_adaptation_pin('nobody', 'hook_threshold', true)$$, 'MDN01', null, 'an unknown dimension is refused');

select * from finish();
rollback;
