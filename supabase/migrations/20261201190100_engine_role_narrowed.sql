-- The engine role as narrow as docs/roles.md says: Postgres grants TEMP on every new database to
-- PUBLIC, so any role could create temporary tables; it is taken back from PUBLIC and from every
-- client role. scene_generation_claims was the one mdame table without row-level security.

do $$
begin
  execute format('revoke temporary on database %I from public, anon, authenticated, service_role, mdame_engine', current_database());
end
$$;

alter table mdame.scene_generation_claims enable row level security;
