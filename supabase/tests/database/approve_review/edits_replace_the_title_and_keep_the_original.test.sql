begin;
\ir ../_fixtures.psql
select plan(4);

create temp table u as select * from tests.unit_awaiting_review();
create temp table a as select * from mdame.approve_review((select id from u), 'A better title', null);

select is((select script->>'title' from mdame.work_units where id = (select id from u)), 'A better title', 'the edited title replaces the script''s');
select is((select script->>'description' from mdame.work_units where id = (select id from u)), 'd', 'the description left out is kept');
select is((select edits from a), '{"title": "Test title"}'::jsonb, 'the review keeps the replaced title');
select is((tests.refusal(format('select mdame.approve_review(%L, %L)', (select id from tests.unit_awaiting_review()), '  '))).code, '22023',
          'an empty title is refused');

select * from finish();
rollback;
