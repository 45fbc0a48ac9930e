begin;
select plan(2);

-- Postgres grants TEMP on a new database to PUBLIC; here no client role holds it.
select is((select array_agg(r order by r) from unnest(array['mdame_engine', 'service_role', 'anon', 'authenticated']) r
            where has_database_privilege(r, current_database(), 'TEMP')),
          null, 'neither the engine role nor an API role may create temporary tables');
select throws_ok($$ set local role mdame_engine; create temporary table probe (id int) $$, '42501', null,
                 'a temporary table of the engine role is refused');

select * from finish();
rollback;
