/**
 * Database checks, in order (each needs the one before): reachable with DB_URL, the engine schema
 * installed, ENV equal to what the database records, pgmq and pg_cron with the schedules, the engine
 * role no wider than docs/reference/roles.md says, and each active dimension with an active account whose
 * credentials open with CREDENTIALS_KEY and whose refresh token the client of its Google project
 * refreshes, then the publishing checks (accounts to reconnect, uploads
 * YouTube locked private); then (reported with the providers) whether YouTube lets that account
 * assign the dimension's category (youtube-categories.ts).
 */
import postgres from "postgres";
import { COMPONENT_DB_ROLES, type DbComponent, ENGINE_DB_ROLE } from "../../shared/config/db-roles.ts";
import { type CredentialKeyRing, credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { decryptCredentials } from "../../shared/crypto/credentials.ts";
import { type AccountRow, getAccounts } from "../../shared/db/rpc/accounts.ts";
import { getDimensions } from "../../shared/db/rpc/dimensions.ts";
import { type WatchdogStatus, watchdogStatus } from "../../shared/db/rpc/alerts.ts";
import { assertEnvironment, getRecordedEnvironment } from "../../shared/db/rpc/runs.ts";
import { getQueueSetup, listSchedules } from "../../shared/db/rpc/setup.ts";
import { createYouTubeAccessTokenSource } from "../../shared/providers/youtube/oauth.ts";
import { youtubeClientFor } from "../../shared/providers/youtube/account-client.ts";
import { ProviderRejectedError } from "../../shared/providers/errors.ts";
import { tiktokAccessToken } from "../../shared/providers/tiktok/account-token.ts";
import { TikTokOAuthError } from "../../shared/providers/tiktok/oauth.ts";
import { DEFAULT_GRAPH_BASE_URL, DEFAULT_GRAPH_VERSION } from "../../shared/providers/meta/graph.ts";
import { classifyMetaRefusal } from "../../shared/providers/meta/refusals.ts";
import { metaUserToken } from "../../shared/providers/meta/tokens.ts";
import { type CheckResult, describeError, fail, ok, warn, withTimeout } from "./check.ts";
import type { DoctorConfig } from "./config.ts";
import { hintFor } from "./hints.ts";
import { publishingChecks } from "./publishing.ts";
import { projectChecks } from "./youtube-projects.ts";
import { checkCategories } from "./youtube-categories.ts";

const FAMILY = "database";
const QUEUES = ["stage_tasks", "visual_generation", "render"];
const APPLY_SCHEMA = "locally `npm run db:reset`; on Supabase `supabase db push`";

function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "DB_URL";
  }
}

export async function checkDatabase(config: DoctorConfig, timeoutMs: number): Promise<CheckResult[]> {
  const env = config.env;
  if (!env.DB_URL) return [fail(FAMILY, "database", "DB_URL is not set (nor SUPABASE_DB_URL)", hintFor("DB_URL"))];
  let sql: postgres.Sql;
  try {
    sql = postgres(env.DB_URL, {
      max: 1,
      connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
      idle_timeout: 1,
      onnotice: () => {},
      connection: { application_name: "mdame-doctor" },
    });
  } catch (error) {
    return [fail(FAMILY, "database", `DB_URL is not a usable connection string: ${describeError(error)}`, hintFor("DB_URL"))];
  }
  const results: CheckResult[] = [];
  const step = <T>(work: () => Promise<T>) => withTimeout(timeoutMs, () => work());
  try {
    try {
      const [row] = await step(() => sql<{ version: string }[]>`select current_setting('server_version') as version`);
      results.push(ok(FAMILY, "database", `reachable at ${where(env.DB_URL)} (PostgreSQL ${row!.version})`));
    } catch (error) {
      results.push(
        fail(
          FAMILY,
          "database",
          `cannot connect to ${where(env.DB_URL)}: ${describeError(error)}`,
          `start the local stack (\`npm run stack\`), or check DB_URL: ${hintFor("DB_URL")}`,
        ),
      );
      return results;
    }

    const [schema] = await step(() =>
      sql<{ settings: boolean; guard: boolean }[]>`
      select to_regclass('mdame.settings') is not null as settings,
             to_regprocedure('mdame.assert_environment(text)') is not null as guard`
    );
    if (!schema!.settings || !schema!.guard) {
      results.push(fail(FAMILY, "schema", "the engine schema (mdame) is not installed", `apply supabase/migrations: ${APPLY_SCHEMA}`));
      return results;
    }
    results.push(ok(FAMILY, "schema", "the mdame schema is installed"));

    results.push(await recordedEnvironment(sql, env.ENV, step));
    results.push(await pgmq(sql, step));
    results.push(await pgCron(sql, step));
    results.push(watchdog(await step(() => watchdogStatus(sql))));
    results.push(await engineRole(sql, step));
    results.push(await componentRoles(sql, step));
    results.push(...(await accounts(sql, config, step, timeoutMs)));
    results.push(...(await step(() => publishingChecks(sql))));
    results.push(...(await step(() => projectChecks(sql, config.env))));
    // Asked as each dimension's account, so it needs the accounts this connection found.
    results.push(...(await checkCategories(sql, config, step, timeoutMs)));
  } catch (error) {
    results.push(fail(FAMILY, "database", `query failed: ${describeError(error)}`));
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
  return results;
}

type Step = <T>(work: () => Promise<T>) => Promise<T>;

const ago = (status: WatchdogStatus, at: Date) => `${Math.max(0, Math.round((status.now.getTime() - at.getTime()) / 1000))} s ago`;

/** The watchdog (docs/reference/alerts.md): what it finds failing, whether it can page, when the tick last ended. */
export function watchdog(status: WatchdogStatus): CheckResult {
  const tick = status.tick_ok_at === null ? "no tick has ended yet" : `the last tick ended ${ago(status, status.tick_ok_at)}`;
  if (status.failing.length > 0) {
    return fail(
      FAMILY,
      "watchdog",
      `failing: ${
        status.failing.map((f) => `${f.check} since ${f.since.toISOString().slice(0, 16).replace("T", " ")} UTC (${f.detail ?? "no detail"})`).join("; ")
      }`,
      'mdame alerts lists what the watchdog raised; docs/reference/alerts.md, "The watchdog", says what each check needs',
    );
  }
  if (status.job_active !== true) {
    return fail(
      FAMILY,
      "watchdog",
      status.job_active === null ? "the pg_cron job mdame-watchdog is not scheduled" : "the pg_cron job mdame-watchdog is paused",
      status.job_active === null ? `apply supabase/migrations: ${APPLY_SCHEMA}` : "update cron.job set active = true where jobname = 'mdame-watchdog';",
    );
  }
  if (status.missing_secrets.length > 0) {
    return warn(
      FAMILY,
      "watchdog",
      `${tick}, but the watchdog cannot page: Vault has no ${status.missing_secrets.join(" or ")} (its alerts wait in mdame alerts)`,
      `select vault.create_secret('<value>', '${status.missing_secrets[0]}'); (docs/guides/deploy.md)`,
    );
  }
  return ok(
    FAMILY,
    "watchdog",
    `nothing failing; ${tick}; it pages through Telegram from the database${
      status.heartbeat_url ? " and pings the outside monitor" : " (no outside monitor: Vault secret mdame_heartbeat_url)"
    }`,
  );
}

async function recordedEnvironment(sql: postgres.Sql, env: string | undefined, step: Step): Promise<CheckResult> {
  try {
    const recorded = await step(() => assertEnvironment(sql, env ?? null));
    return ok(FAMILY, "environment", `ENV=${recorded} matches the environment the database records`);
  } catch (error) {
    const recorded = await step(() => getRecordedEnvironment(sql)).catch(() => null);
    const fix = recorded === null
      ? "record it once: insert into mdame.settings (key, value) values ('env', 'prod');"
      : `set ENV=${recorded}, or use the database of the environment you meant`;
    return fail(FAMILY, "environment", describeError(error), fix);
  }
}

async function pgmq(sql: postgres.Sql, step: Step): Promise<CheckResult> {
  const [ext] = await step(() => sql<{ version: string | null }[]>`select (select extversion from pg_extension where extname = 'pgmq') as version`);
  const setup = await step(() => getQueueSetup(sql, QUEUES));
  if (!setup.send) return fail(FAMILY, "pgmq", "pgmq is not installed", `apply supabase/migrations (the first creates the pgmq extension): ${APPLY_SCHEMA}`);
  const missing = QUEUES.filter((q) => !setup.queues.includes(q));
  const kind = ext!.version ? `extension ${ext!.version}` : "pgmq-compatible SQL";
  if (missing.length > 0) return fail(FAMILY, "pgmq", `${kind}, but queues are missing: ${missing.join(", ")}`, `apply supabase/migrations: ${APPLY_SCHEMA}`);
  return ok(FAMILY, "pgmq", `${kind}; queues ${QUEUES.join(", ")}`);
}

async function pgCron(sql: postgres.Sql, step: Step): Promise<CheckResult> {
  const [ext] = await step(() => sql<{ version: string | null }[]>`select (select extversion from pg_extension where extname = 'pg_cron') as version`);
  if (!ext!.version) {
    return fail(
      FAMILY,
      "pg_cron",
      "pg_cron is not installed",
      "Supabase: Database > Extensions > pg_cron; a plain Postgres: shared_preload_libraries = 'pg_cron', then create extension pg_cron",
    );
  }
  // Every job mdame.engine_jobs declares, with its state in cron.job (null: not scheduled).
  const jobs = await step(() => listSchedules(sql));
  const missing = jobs.filter((j) => j.active === null).map((j) => j.jobname);
  const inactive = jobs.filter((j) => j.active === false).map((j) => j.jobname);
  if (jobs.length === 0) {
    return fail(FAMILY, "pg_cron", "the database declares no engine jobs (mdame.engine_jobs is empty)", `apply supabase/migrations: ${APPLY_SCHEMA}`);
  }
  if (missing.length > 0) {
    return fail(FAMILY, "pg_cron", `schedules missing: ${missing.join(", ")}`, `apply supabase/migrations (the schedules come with them): ${APPLY_SCHEMA}`);
  }
  if (inactive.length > 0) {
    return fail(
      FAMILY,
      "pg_cron",
      `schedules inactive: ${inactive.join(", ")}`,
      `update cron.job set active = true where jobname in (${inactive.map((n) => `'${n}'`).join(", ")});`,
    );
  }
  return ok(FAMILY, "pg_cron", `extension ${ext!.version}; schedules ${jobs.map((j) => `${j.jobname} (${j.schedule})`).join(", ")}`);
}

/** What no privilege check can take from the engine role; stated on every engine role line. */
export const ENGINE_ROLE_RESIDUAL =
  `${ENGINE_DB_ROLE} can still change its own password, as every Postgres role can: one compromised component could lock the others out (docs/reference/roles.md says how to recover)`;

interface EngineRoleRow {
  connected_as: string;
  database: string;
  exists: boolean;
  superuser: boolean;
  attributes: string[];
  temp: boolean;
  create_database: boolean;
  create_in: string[];
  member_of: string[];
  settings: string[];
  tables: number;
  without_rls: string[];
}

/**
 * The engine role as narrow as docs/reference/roles.md says: no TEMP or CREATE on the database, CREATE in no
 * schema, no role attribute beyond login, a member of no role, no session defaults of its own,
 * every mdame table under row-level security, and DB_URL connecting as it. The catalogs it reads
 * are open to every role.
 */
async function engineRole(sql: postgres.Sql, step: Step): Promise<CheckResult> {
  const [row] = await step(() =>
    sql<EngineRoleRow[]>`
    select current_user::text as connected_as, current_database()::text as database,
           r.oid is not null as exists, coalesce(r.rolsuper, false) as superuser,
           array_remove(array[case when r.rolcreaterole then 'createrole' end, case when r.rolcreatedb then 'createdb' end,
                              case when r.rolbypassrls then 'bypassrls' end, case when r.rolreplication then 'replication' end], null) as attributes,
           coalesce(has_database_privilege(r.oid, current_database(), 'TEMP'), false) as temp,
           coalesce(has_database_privilege(r.oid, current_database(), 'CREATE'), false) as create_database,
           array(select n.nspname::text from pg_namespace n
                  where r.oid is not null and has_schema_privilege(r.oid, n.oid, 'CREATE') and n.nspname !~ '^pg_(toast_)?temp_' order by 1) as create_in,
           array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid where m.member = r.oid order by 1) as member_of,
           array(select c::text from pg_db_role_setting s, unnest(s.setconfig) c
                  where s.setrole = r.oid and s.setdatabase in (0, (select d.oid from pg_database d where d.datname = current_database())) order by 1) as settings,
           (select count(*)::int from pg_class c where c.relnamespace = 'mdame'::regnamespace and c.relkind in ('r', 'p')) as tables,
           array(select c.relname::text from pg_class c
                  where c.relnamespace = 'mdame'::regnamespace and c.relkind in ('r', 'p') and not c.relrowsecurity order by 1) as without_rls
      from (select 1) as one left join pg_roles r on r.rolname = ${ENGINE_DB_ROLE}`
  );
  const found = row!;
  if (!found.exists) {
    return warn(
      FAMILY,
      "engine role",
      `there is no ${ENGINE_DB_ROLE} role for the components to connect as`,
      `apply supabase/migrations: ${APPLY_SCHEMA}; then docs/reference/roles.md`,
    );
  }
  const problems: string[] = [];
  const fixes: string[] = [];
  const db = `"${found.database.replaceAll('"', '""')}"`;
  if (found.connected_as !== ENGINE_DB_ROLE) {
    problems.push(`DB_URL connects as ${found.connected_as}, not ${ENGINE_DB_ROLE}, so the components would hold ${found.connected_as}'s privileges`);
    fixes.push(`point DB_URL at ${ENGINE_DB_ROLE} (docs/reference/roles.md)`);
  }
  if (found.superuser) {
    problems.push(`${ENGINE_DB_ROLE} is a superuser`);
    fixes.push(`alter role ${ENGINE_DB_ROLE} nosuperuser;`);
  } else {
    if (found.temp) {
      problems.push(`it may create temporary tables (TEMP on database ${found.database})`);
      fixes.push(`revoke temporary on database ${db} from public, ${ENGINE_DB_ROLE};`);
    }
    if (found.create_database) {
      problems.push(`it may create schemas (CREATE on database ${found.database})`);
      fixes.push(`revoke create on database ${db} from public, ${ENGINE_DB_ROLE};`);
    }
    if (found.create_in.length > 0) {
      problems.push(`it may create objects in schema ${found.create_in.join(", ")}`);
      fixes.push(...found.create_in.map((schema) => `revoke create on schema "${schema.replaceAll('"', '""')}" from public, ${ENGINE_DB_ROLE};`));
    }
  }
  if (found.attributes.length > 0) {
    problems.push(`it has ${found.attributes.join(", ")}`);
    fixes.push(`alter role ${ENGINE_DB_ROLE} ${found.attributes.map((a) => `no${a}`).join(" ")};`);
  }
  if (found.member_of.length > 0) {
    problems.push(`it is a member of ${found.member_of.join(", ")}`);
    fixes.push(...found.member_of.map((role) => `revoke "${role.replaceAll('"', '""')}" from ${ENGINE_DB_ROLE};`));
  }
  if (found.settings.length > 0) {
    // The one change the role may make to itself besides its password: it would reach every component.
    problems.push(`it has session defaults of its own (${found.settings.join(", ")})`);
    fixes.push(`alter role ${ENGINE_DB_ROLE} reset all; alter role ${ENGINE_DB_ROLE} in database ${db} reset all;`);
  }
  if (found.without_rls.length > 0) {
    problems.push(`row-level security is off on ${found.without_rls.map((t) => `mdame.${t}`).join(", ")}`);
    fixes.push(...found.without_rls.map((t) => `alter table mdame."${t.replaceAll('"', '""')}" enable row level security;`));
  }
  if (problems.length > 0) {
    return warn(
      FAMILY,
      "engine role",
      `${ENGINE_DB_ROLE} can do more than docs/reference/roles.md lists: ${problems.join("; ")}. ${ENGINE_ROLE_RESIDUAL}`,
      fixes.join(" "),
    );
  }
  return ok(
    FAMILY,
    "engine role",
    `${ENGINE_DB_ROLE} may only call the RPCs (no TEMP or CREATE, no role attributes, memberships or session defaults; row-level security on all ${found.tables} mdame tables). ${ENGINE_ROLE_RESIDUAL}`,
  );
}

/** The RPCs that return sealed credentials: only the publishing edge may execute them. */
const SEALED_CREDENTIAL_RPCS = ["get_accounts", "get_youtube_client"];

interface ComponentRoleRow {
  role: string;
  exists: boolean;
  login: boolean;
  rpcs: string[];
  wider: string[];
}

/**
 * Each component's role (COMPONENT_DB_ROLES) and the RPCs it may execute, from the catalogs (open
 * to every role): a warning when one is missing or cannot log in, when a component other than the
 * edge may read sealed credentials, or when a worker's role may create anything or holds a role
 * attribute or membership (the edge's own line above says the same of it).
 */
async function componentRoles(sql: postgres.Sql, step: Step): Promise<CheckResult> {
  const roles = Object.entries(COMPONENT_DB_ROLES) as [DbComponent, string][];
  const rows = await step(() =>
    sql<ComponentRoleRow[]>`
    select name as role, r.oid is not null as exists, coalesce(r.rolcanlogin, false) as login,
           array(select distinct p.proname::text from pg_proc p
                  where r.oid is not null and p.pronamespace = 'mdame'::regnamespace and has_function_privilege(r.oid, p.oid, 'execute') order by 1) as rpcs,
           array_remove(array[
             case when has_database_privilege(r.oid, current_database(), 'TEMP') then 'TEMP' end,
             case when has_database_privilege(r.oid, current_database(), 'CREATE') then 'CREATE on the database' end,
             case when r.rolsuper or r.rolcreaterole or r.rolcreatedb or r.rolbypassrls or r.rolreplication then 'a role attribute' end,
             case when exists (select 1 from pg_auth_members m where m.member = r.oid) then 'a membership' end,
             case when exists (select 1 from pg_namespace n where has_schema_privilege(r.oid, n.oid, 'CREATE') and n.nspname !~ '^pg_(toast_)?temp_')
                  then 'CREATE in a schema' end], null) as wider
      from unnest(${roles.map(([, role]) => role)}::text[]) with ordinality as wanted(name, position)
      left join pg_roles r on r.rolname = name
     order by position`
  );
  const problems: string[] = [];
  const fixes: string[] = [];
  const lines = roles.map(([component, role], i) => {
    const row = rows[i]!;
    if (!row.exists) {
      problems.push(`there is no role ${role} for the ${component}`);
      fixes.push(`apply supabase/migrations (${APPLY_SCHEMA})`);
      return `${role} (${component}): missing`;
    }
    if (!row.login) {
      problems.push(`${role} cannot log in, so the ${component} cannot connect`);
      fixes.push(`alter role ${role} with login password '<a password of its own>'; (docs/guides/deploy.md)`);
    }
    const sealed = row.rpcs.filter((rpc) => SEALED_CREDENTIAL_RPCS.includes(rpc));
    if (component !== "edge" && sealed.length > 0) {
      problems.push(`the ${component} may read sealed credentials (${sealed.join(", ")})`);
      fixes.push(...sealed.map((rpc) => `revoke execute on function mdame.${rpc} from ${role};`), "then select mdame.restrict_function_privileges();");
    }
    if (component !== "edge" && row.wider.length > 0) problems.push(`${role} holds ${row.wider.join(", ")}`);
    return `${role} (${component}): ${row.rpcs.length} RPCs${component === "edge" ? "" : ` (${row.rpcs.join(", ")})`}`;
  });
  if (problems.length > 0) return warn(FAMILY, "component roles", `${problems.join("; ")}. ${lines.join("; ")}`, fixes.join(" ") || "docs/reference/roles.md");
  return ok(FAMILY, "component roles", lines.join("; "));
}

/**
 * Each active dimension needs an active account whose credentials open and whose grant its own
 * platform's token endpoint accepts: Google's, through the client of the account's Google project,
 * for YouTube; TikTok's, with the TikTok app's client key, for TikTok (a refresh token TikTok
 * rotates is sealed over the stored one, as the publish stage does); Meta's, exchanging the
 * long-lived user token with the Meta app, for Instagram and Facebook (the fresh token sealed
 * over the stored one, as the publish stage does).
 */
/** Whose token endpoint an account's grant is tried at. */
const TOKEN_ENDPOINTS: Record<AccountRow["platform"], string> = { youtube: "Google", tiktok: "TikTok", instagram: "Meta", facebook: "Meta" };

async function accounts(sql: postgres.Sql, config: DoctorConfig, step: Step, timeoutMs: number): Promise<CheckResult[]> {
  const env = config.env;
  const [dimensions, activeAccounts] = await step(async () =>
    [
      (await getDimensions(sql)).filter((d) => d.active),
      (await getAccounts(sql)).filter((a) => a.active),
    ] as const
  );
  if (dimensions.length === 0) {
    return [warn(FAMILY, "dimensions", "no active dimension: runs will produce nothing", "add one: mdame dimension add --file dim.json")];
  }
  const byDimension = new Map<string, AccountRow[]>(dimensions.map((d) => [d.id, activeAccounts.filter((a) => a.dimension_id === d.id)]));
  const tokenUrl = env.GOOGLE_OAUTH_TOKEN_URL || "https://oauth2.googleapis.com/token";
  /**
   * The call that takes the account's access token at its platform's endpoint, or null when there is
   * nothing to try it with; throws when the account cannot be tried at all (no app, no client).
   */
  const grantCall = async (account: AccountRow, ring: CredentialKeyRing, refreshToken: string): Promise<(() => Promise<unknown>) | null> => {
    if (account.platform === "tiktok") {
      if (!env.TIKTOK_CLIENT_KEY || !env.TIKTOK_CLIENT_SECRET) throw new Error("TikTok accounts need TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET");
      const app = { clientKey: env.TIKTOK_CLIENT_KEY, clientSecret: env.TIKTOK_CLIENT_SECRET, apiBaseUrl: env.TIKTOK_API_BASE_URL };
      return () => tiktokAccessToken(sql, ring, app, { id: account.id, credentialsEnc: account.credentials_enc, refreshToken });
    }
    if (account.platform === "instagram" || account.platform === "facebook") {
      if (!env.META_APP_ID || !env.META_APP_SECRET) throw new Error("Instagram and Facebook accounts need META_APP_ID and META_APP_SECRET");
      const host = { graphBaseUrl: env.META_GRAPH_BASE_URL || DEFAULT_GRAPH_BASE_URL, version: env.META_GRAPH_VERSION || DEFAULT_GRAPH_VERSION };
      const app = { appId: env.META_APP_ID, appSecret: env.META_APP_SECRET };
      return () => metaUserToken(sql, ring, { host, app }, { id: account.id, credentialsEnc: account.credentials_enc, userToken: refreshToken });
    }
    // The client of the account's Google project, as the publish stage picks it: Google refuses a
    // refresh token presented by another client.
    const client = await step(() => youtubeClientFor(sql, ring, env, account.id));
    return client === null ? null : () => createYouTubeAccessTokenSource({ ...client, tokenUrl, refreshToken }).getAccessToken();
  };
  const checks = [...byDimension].map(async ([dimension, list]): Promise<CheckResult> => {
    const name = `dimension ${dimension}`;
    const connect = (platform: string) => `mdame account connect ${platform} --dimension ${dimension}`;
    if (list.length === 0) return fail(FAMILY, name, "no active account: its videos cannot be published", `connect one: ${connect("youtube")}`);
    const problems: string[] = [];
    const failedPlatforms = new Set<string>();
    const unconfirmed: string[] = [];
    let refreshed = 0;
    for (const account of list) {
      const label = `account ${account.channel_handle}`;
      const problem = (text: string) => {
        problems.push(`${label}: ${text}`);
        failedPlatforms.add(account.platform);
      };
      if (!account.credentials_enc) {
        problems.push(`${label} has no credentials`);
        failedPlatforms.add(account.platform);
        continue;
      }
      let refreshToken: string;
      let ring: CredentialKeyRing;
      try {
        if (!env.CREDENTIALS_KEY) throw new Error("CREDENTIALS_KEY is not set");
        ring = credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY, CREDENTIALS_KEYS_PREVIOUS: env.CREDENTIALS_KEYS_PREVIOUS });
        refreshToken = (await decryptCredentials(ring, account.credentials_enc, account.id)).refresh_token;
      } catch (error) {
        problem(`credentials do not decrypt with the key ring (${describeError(error)})`);
        continue;
      }
      let call: (() => Promise<unknown>) | null;
      try {
        call = await grantCall(account, ring, refreshToken);
      } catch (error) {
        problem(describeError(error));
        continue;
      }
      if (call === null) continue;
      refreshed += 1;
      try {
        await withTimeout(timeoutMs, call);
      } catch (error) {
        const refused = error instanceof ProviderRejectedError || (error instanceof TikTokOAuthError && !error.retriable) ||
          classifyMetaRefusal(error)?.kind === "needs_reconnect";
        if (refused) problem(`the ${TOKEN_ENDPOINTS[account.platform]} token endpoint refused its refresh token (${describeError(error)})`);
        else unconfirmed.push(`${label}: its refresh token could not be tried (${describeError(error)})`);
      }
    }
    if (problems.length > 0) {
      const fixes = [...failedPlatforms].sort().map(connect).join(" or ");
      return fail(FAMILY, name, problems.join("; "), `reconnect: ${fixes} (or check CREDENTIALS_KEY and CREDENTIALS_KEYS_PREVIOUS, docs/guides/rotation.md)`);
    }
    // The token endpoint's own check says why it could not be reached.
    if (unconfirmed.length > 0) return warn(FAMILY, name, `credentials decrypt, but ${unconfirmed.join("; ")}`, "see the google-oauth line");
    const accepted = refreshed === 0 ? "" : refreshed === list.length ? ", refresh token accepted" : `, ${refreshed} refresh token(s) accepted`;
    return ok(
      FAMILY,
      name,
      `${list.length} active account${list.length === 1 ? "" : "s"} (${list.map((a) => a.channel_handle).join(", ")}): credentials decrypt${accepted}`,
    );
  });
  return Promise.all(checks);
}
