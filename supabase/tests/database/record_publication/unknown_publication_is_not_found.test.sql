begin;
\ir ../_fixtures.psql
select plan(1);

select throws_ok($$select mdame.record_publication(1, gen_random_uuid(), 'vid-1', null)$$, 'MDN01', null,
                 'an unknown publication raises MDN01');

select * from finish();
rollback;
