begin;
\ir ../_fixtures.psql
select plan(4);

select mdame.update_dimension('tech-explained', '{"llm": {"plan": [{"provider": "openai-compat"}]}}'::jsonb);
select is((select llm from mdame.dimensions where id = 'tech-explained'), '{"plan": [{"provider": "openai-compat"}]}'::jsonb,
  'a configuration with llm replaces the routing');

select mdame.update_dimension('tech-explained', '{"daily_limit": 3}'::jsonb);
select is((select llm from mdame.dimensions where id = 'tech-explained'), '{"plan": [{"provider": "openai-compat"}]}'::jsonb,
  'a configuration without llm keeps it');

select throws_ok($$select mdame.update_dimension('tech-explained', '{"llm": {"script": []}}'::jsonb)$$, '23514', null,
  'a task with no provider is refused');
select throws_ok($$update mdame.dimensions set llm = '[]'::jsonb where id = 'tech-explained'$$, '23514', null,
  'the table refuses a routing that is not an object');

select * from finish();
rollback;
