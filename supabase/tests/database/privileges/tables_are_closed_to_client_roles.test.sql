begin;
select plan(9);

create temp table grants as
  select c.oid::regclass::text as rel, r.rolname, p.privilege
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    cross join (values ('mdame_engine'), ('service_role'), ('anon'), ('authenticated')) as r (rolname)
    cross join (values ('select'), ('insert'), ('update'), ('delete'), ('truncate'), ('references'), ('trigger')) as p (privilege)
   where n.nspname = 'mdame' and c.relkind in ('r', 'p', 'v', 'm')
     and has_table_privilege(r.rolname, c.oid, p.privilege);

select cmp_ok((select count(*) from pg_tables where schemaname = 'mdame'), '>=', 20::bigint, 'the schema''s tables are there to check');
select is((select array_agg(rolname || ' ' || privilege || ' ' || rel order by 1) from grants), null,
          'no client role holds any privilege on any table of mdame');
select is((select array_agg(c.oid::regclass::text order by 1) from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'mdame' and c.relkind = 'S'
              and (has_sequence_privilege('mdame_engine', c.oid, 'usage') or has_sequence_privilege('service_role', c.oid, 'usage'))),
          null, 'nor on its sequences');

-- What a probe of the running stack found service_role able to do.
insert into mdame.webhook_receipts (webhook_id, kind) values ('msg_privileges_probe', 'render.completed');
select throws_ok($$ set local role service_role; delete from mdame.webhook_receipts $$, '42501', null,
                 'service_role cannot delete webhook receipts (the replay guard)');
select throws_ok($$ set local role mdame_engine; delete from mdame.webhook_receipts $$, '42501', null,
                 'nor can the engine role');
select is((select count(*) from mdame.webhook_receipts where webhook_id = 'msg_privileges_probe'), 1::bigint, 'the receipt is still there');
select throws_ok($$ set local role mdame_engine; select * from mdame.dimensions $$, '42501', null,
                 'the engine role cannot read a table');
select throws_ok($$ set local role mdame_engine; update mdame.dimensions set daily_limit = 99 $$, '42501', null,
                 'nor change one');
select throws_ok($$ set local role service_role; insert into mdame.settings (key, value) values ('probe', 'x') $$, '42501', null,
                 'service_role cannot insert into a table');

select * from finish();
rollback;
