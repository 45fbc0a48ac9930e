begin;
\ir ../_fixtures.psql
-- The stack's own secrets, any request pg_net has not sent yet and the ticks in flight are there
-- (the real extensions or their stand-ins): this test starts from none (the transaction rolls back).
delete from vault.secrets where name in ('mdame_functions_url', 'mdame_service_role_key');
delete from net.http_request_queue;
delete from mdame.stage_runner_wakes;
select plan(3);

select vault.create_secret('https://abcdefgh.supabase.mdame-test.invalid/functions/v1', 'mdame_functions_url');
select vault.create_secret('sk-9f1c2e7a-never-in-a-table', 'mdame_service_role_key');
select mdame.wake_stage_runner('tick');
select tests.unit_at_stage('script') as unit \gset
select mdame.enqueue_stage_task('script', (:'unit'::mdame.work_units).run_id, (:'unit'::mdame.work_units).id);

-- Every table of the database, row by row as text, except pg_net's own transport queue (pg_net
-- holds a request there, headers included, until its worker sends it, then deletes it).
create function tests.tables_holding(p_needle text) returns text[]
language plpgsql as $$
declare
  r record;
  v_found boolean;
  v_tables text[] := '{}';
begin
  for r in
    select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema', 'net')
       and n.nspname not like 'pg\_toast%'
  loop
    execute format('select exists (select 1 from %I.%I t where strpos(t::text, $1) > 0)', r.nspname, r.relname)
      into v_found using p_needle;
    if v_found then
      v_tables := v_tables || (r.nspname || '.' || r.relname);
    end if;
  end loop;
  return v_tables;
end $$;

select is(tests.tables_holding('sk-9f1c2e7a-never-in-a-table'), '{}'::text[],
          'no table holds the service key in clear (Vault stores it encrypted)');
select is((select count(*) from mdame.settings where key in ('functions_url', 'service_role_key')), 0::bigint,
          'mdame.settings holds neither the functions URL nor the service key');
select is((select decrypted_secret from vault.decrypted_secrets where name = 'mdame_service_role_key'),
          'sk-9f1c2e7a-never-in-a-table', 'the key is readable only through vault.decrypted_secrets');

select * from finish();
rollback;
