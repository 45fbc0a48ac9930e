begin;
\ir ../_fixtures.psql
select plan(3);

delete from mdame.llm_cache;
insert into mdame.llm_cache (cache_key, model, response) select repeat(to_hex(i), 64), 'm', '{}' from generate_series(1, 5) i;
select mdame.set_housekeeping_setting('batch_size', 2);
select mdame.set_engine_clock(interval '31 days');
select results_eq($$select due, deleted from mdame.housekeeping(false) where kind = 'llm_cache'$$, $$values (5::bigint, 2::bigint)$$, 'first pass: 2 of 5');
select results_eq($$select due, deleted from mdame.housekeeping(false) where kind = 'llm_cache'$$, $$values (3::bigint, 2::bigint)$$, 'second pass: 2 of 3');
select results_eq($$select due, deleted from mdame.housekeeping(false) where kind = 'llm_cache'$$, $$values (1::bigint, 1::bigint)$$, 'third pass: the last one');

select * from finish();
rollback;
