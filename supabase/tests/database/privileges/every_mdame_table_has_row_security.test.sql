begin;
select plan(2);

-- Every table of the engine has row-level security on (and no policy): a client role that ever got
-- a table privilege would still read and write nothing. A table added without it fails here.
select is((select array_agg(c.relname::text order by c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'mdame' and c.relkind in ('r', 'p') and not c.relrowsecurity),
          null, 'every table in mdame has row-level security on');
select ok((select count(*) > 15 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'mdame' and c.relkind in ('r', 'p')),
          'over the engine''s tables (the schema is installed)');

select * from finish();
rollback;
