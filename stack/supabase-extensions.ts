/**
 * Supabase's own extensions on the local cluster: which of pgmq, pg_net and supabase_vault the
 * server's installation holds, what the server needs at start for them (pg_net and Vault must be
 * preloaded; Vault reads its root key from a getkey script), and the Vault secrets the wake-ups
 * read (docs/reference/supabase-wiring.md).
 *
 * The OS packages' Postgres has none of the three: then nothing here changes the cluster, and the
 * engine runs on the pgmq-compatible SQL and the pg_net and Vault stand-ins (stack/platform-sql.ts).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { paths, PG_OS_USER, RUNNING_AS_ROOT } from "./paths.ts";
import { serverExtensions } from "./pg-server.ts";

/** Paths the server gets on its command line: plain characters only (pg_ctl -o goes through a shell). */
const SHELL_PLAIN = /^[A-Za-z0-9_./-]+$/;

/** Whether the cluster's OS user may run `file` (runuser when we are root and it is someone else). */
function serverUserCanRun(file: string): boolean {
  if (!RUNNING_AS_ROOT) return true;
  return spawnSync("runuser", ["-u", PG_OS_USER, "--", "test", "-x", file], { stdio: "ignore" }).status === 0;
}

function giveToServerUser(file: string): void {
  if (!RUNNING_AS_ROOT) return;
  const id = (flag: string) => Number(spawnSync("id", [flag, PG_OS_USER], { encoding: "utf8" }).stdout?.trim() || NaN);
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid <= 0) throw new Error(`OS user ${PG_OS_USER} not found (install postgresql-15)`);
  chownSync(file, uid, gid);
}

function writeScript(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o500 });
  chmodSync(tmp, 0o500);
  giveToServerUser(tmp);
  renameSync(tmp, file);
}

/** The clone's own Vault root key script, in `.local/` (git ignores the folder). */
const VAULT_GETKEY_IN_PROJECT = join(paths.local, "vault-getkey");

/**
 * Beside the data directory: where the script goes when the server's OS user cannot enter the
 * project (root runs the cluster as `postgres`, and a clone under /root is closed to it).
 */
const VAULT_GETKEY_BESIDE_DATA = `${paths.pgData}-vault-getkey`;

/**
 * The getkey script Vault reads its root key from, created once per clone: it prints 32 random
 * bytes as 64 hex digits, owned by and executable only by the cluster's OS user. The key is the
 * clone's own, so secrets stored under one server binary stay readable under another. Returns the
 * path the server can run.
 */
function ensureVaultGetkey(): string {
  if (!existsSync(VAULT_GETKEY_IN_PROJECT)) {
    writeScript(VAULT_GETKEY_IN_PROJECT, `#!/bin/sh\necho ${randomBytes(32).toString("hex")}\n`);
  }
  if (SHELL_PLAIN.test(VAULT_GETKEY_IN_PROJECT) && serverUserCanRun(VAULT_GETKEY_IN_PROJECT)) return VAULT_GETKEY_IN_PROJECT;
  const text = readFileSync(VAULT_GETKEY_IN_PROJECT, "utf8");
  if (!existsSync(VAULT_GETKEY_BESIDE_DATA) || readFileSync(VAULT_GETKEY_BESIDE_DATA, "utf8") !== text) writeScript(VAULT_GETKEY_BESIDE_DATA, text);
  if (!SHELL_PLAIN.test(VAULT_GETKEY_BESIDE_DATA) || !serverUserCanRun(VAULT_GETKEY_BESIDE_DATA)) {
    throw new Error(
      `the Vault getkey script must be runnable by OS user ${
        RUNNING_AS_ROOT ? PG_OS_USER : "of the cluster"
      } at a path of plain characters; neither ${VAULT_GETKEY_IN_PROJECT} nor ${VAULT_GETKEY_BESIDE_DATA} is (set MDAME_PGDATA elsewhere)`,
    );
  }
  return VAULT_GETKEY_BESIDE_DATA;
}

/**
 * Server options for the extensions the installation has, decided at every start (a cluster made
 * with one binary may be started with another): pg_net and supabase_vault join pg_cron in
 * shared_preload_libraries, and Vault gets the clone's getkey script. Nothing for a server that
 * has neither, so the plain server starts exactly as postgresql.conf says.
 */
export function extensionStartOptions(binDir: string): string[] {
  const extensions = serverExtensions(binDir);
  if (!extensions.pgNet && !extensions.vault) return [];
  const preload = ["pg_cron", ...(extensions.pgNet ? ["pg_net"] : []), ...(extensions.vault ? ["supabase_vault"] : [])];
  const options = ["-c", `shared_preload_libraries=${preload.join(",")}`];
  if (extensions.vault) options.push("-c", `vault.getkey_script=${ensureVaultGetkey()}`);
  return options;
}

/** A SQL string literal (standard_conforming_strings is on). */
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * The Vault secrets the database reads, by name, with the environment variable each comes from on
 * the local stack: the wake-ups' functions URL and key (docs/reference/supabase-wiring.md), the
 * watchdog's Telegram bot, chat and API (its own delivery, docs/reference/alerts.md) and the outside
 * monitor's heartbeat URL. docs/guides/deploy.md has a deployer store the same names.
 */
export const VAULT_SECRETS = [
  { name: "mdame_functions_url", env: "FUNCTIONS_URL", description: "MD-AME: base URL of the Edge Functions" },
  { name: "mdame_service_role_key", env: "SERVICE_ROLE_KEY", description: "MD-AME: bearer token of the pipeline tick" },
  { name: "mdame_telegram_bot_token", env: "TELEGRAM_BOT_TOKEN", description: "MD-AME: the watchdog's Telegram bot token" },
  { name: "mdame_telegram_chat_id", env: "TELEGRAM_CHAT_ID", description: "MD-AME: the chat of the watchdog's alerts" },
  { name: "mdame_telegram_api_url", env: "TELEGRAM_API_BASE_URL", description: "MD-AME: the Telegram Bot API's base URL" },
  { name: "mdame_heartbeat_url", env: "MDAME_HEARTBEAT_URL", description: "MD-AME: the outside monitor's ping URL" },
] as const;

/**
 * The Vault secrets of VAULT_SECRETS that `env` sets, stored the same way as a deployer does
 * (vault.create_secret), in the real Vault or its stand-in; a name `env` leaves unset is removed,
 * so a stack started without Telegram has no stale token. Earlier rows of the same names are
 * deleted rather than updated: update_secret decrypts the old value first, which fails for a row
 * stored under another root key. A no-op on a database with neither (one the stack's reset did not
 * build).
 */
export function storeVaultSecretsSql(env: Record<string, string | undefined>): string {
  const names = VAULT_SECRETS.map((secret) => literal(secret.name)).join(", ");
  const creates = VAULT_SECRETS.filter((secret) => (env[secret.env] ?? "") !== "").map((secret) =>
    `  perform vault.create_secret(${literal(env[secret.env]!)}, ${literal(secret.name)}, ${literal(secret.description)});`
  );
  return `
do $$
begin
  if to_regclass('vault.secrets') is null then
    return;
  end if;
  delete from vault.secrets where name in (${names});
${creates.join("\n")}
end $$;`;
}
