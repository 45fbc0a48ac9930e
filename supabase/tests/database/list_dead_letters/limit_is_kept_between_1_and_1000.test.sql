begin;
\ir ../_fixtures.psql
select plan(3);

insert into mdame.dead_letters (queue_name, msg_id, read_ct, payload, last_error)
select 'render', n, 3, '{}', 'error' from generate_series(1, 1001) as n;

select is((select count(*) from mdame.list_dead_letters(0)), 1::bigint, 'a limit of 0 lists one');
select is((select count(*) from mdame.list_dead_letters(-5)), 1::bigint, 'a negative limit lists one');
select is((select count(*) from mdame.list_dead_letters(5000)), 1000::bigint, 'a limit past 1000 lists 1000');

select * from finish();
rollback;
