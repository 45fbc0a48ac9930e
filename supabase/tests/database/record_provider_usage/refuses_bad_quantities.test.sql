begin;
\ir ../_fixtures.psql
select plan(4);

select throws_ok($$select mdame.record_provider_usage('k', 'gemini', 'm', '{}', false, 'tech-explained')$$, '22023', null, 'no quantity is refused');
select throws_ok($$select mdame.record_provider_usage('k', 'gemini', 'm', '{"input_tokens": -1}', false, 'tech-explained')$$, '22023', null, 'a negative quantity is refused');
select throws_ok($$select mdame.record_provider_usage('k', 'gemini', 'm', '{"lunches": 1}', false, 'tech-explained')$$, '23514', null, 'an unknown unit kind is refused');
select is((select count(*)::int from mdame.provider_usage), 0, 'nothing is recorded of a refused call');

select * from finish();
rollback;
