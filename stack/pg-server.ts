/**
 * The Postgres installation the local cluster runs on: the OS packages' Postgres 15, or the one
 * MDAME_PG_BINDIR names (a copy with Supabase's own extensions, docs/reference/supabase-wiring.md), and what
 * it offers of pgmq, pg_net and supabase_vault, read from its files so it is known before any
 * server runs. The pgmq layout the engine is reset to follows from it (docs/reference/pgmq.md).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import process from "node:process";

let cachedBinDir: string | undefined;

/** Directory of the Postgres 15 server binaries (pg_cron is packaged for 15). */
export function pgBinDir(): string {
  if (cachedBinDir) return cachedBinDir;
  const usable = (dir: string | undefined): dir is string => !!dir && existsSync(join(dir, "postgres")) && existsSync(join(dir, "pg_ctl"));
  for (const dir of [process.env.MDAME_PG_BINDIR, "/usr/lib/postgresql/15/bin"]) {
    if (usable(dir)) return (cachedBinDir = dir);
  }
  // Elsewhere (not Debian's layout), ask pg_config; absent when only the server package is installed.
  const fromPgConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" }).stdout?.trim();
  if (usable(fromPgConfig)) return (cachedBinDir = fromPgConfig);
  throw new Error("Postgres 15 server binaries not found (install postgresql-15: node scripts/bootstrap.mjs)");
}

/** What a Postgres installation offers of Supabase's extensions. */
interface ServerExtensions {
  /** pg_net.so in the server's pkglibdir: wake-ups can go over HTTP. */
  pgNet: boolean;
  /** supabase_vault.so in the server's pkglibdir: secrets can be kept in Vault. */
  vault: boolean;
  /** default_version of the server's pgmq extension (`1.5.1`), or null when it has none. */
  pgmqVersion: string | null;
}

const installations = new Map<string, { pkglibdir: string; sharedir: string }>();

/**
 * pkglibdir and sharedir of the installation holding `binDir`: pg_config's answer when it sits
 * beside the server (it accounts for a relocated copy), else Debian's layout
 * (`/usr/lib/postgresql/15/bin` -> `/usr/lib/postgresql/15/lib`, `/usr/share/postgresql/15`).
 */
function installationDirs(binDir: string): { pkglibdir: string; sharedir: string } {
  const known = installations.get(binDir);
  if (known) return known;
  const pgConfig = join(binDir, "pg_config");
  const answer = existsSync(pgConfig) ? spawnSync(pgConfig, ["--pkglibdir", "--sharedir"], { encoding: "utf8" }) : null;
  const lines = answer?.status === 0 ? answer.stdout.trim().split("\n") : [];
  const major = basename(dirname(binDir));
  const dirs = lines.length === 2
    ? { pkglibdir: lines[0]!.trim(), sharedir: lines[1]!.trim() }
    : { pkglibdir: resolve(binDir, "..", "lib"), sharedir: resolve(binDir, "..", "..", "..", "..", "share", "postgresql", major) };
  installations.set(binDir, dirs);
  return dirs;
}

/** Reads the extensions the installation of `binDir` holds, from its files (no server needed). */
export function serverExtensions(binDir: string): ServerExtensions {
  const { pkglibdir, sharedir } = installationDirs(binDir);
  const control = (name: string) => join(sharedir, "extension", `${name}.control`);
  const has = (name: string) => existsSync(join(pkglibdir, `${name}.so`)) && existsSync(control(name));
  let pgmqVersion: string | null = null;
  if (existsSync(control("pgmq"))) {
    pgmqVersion = /^\s*default_version\s*=\s*'([^']+)'/m.exec(readFileSync(control("pgmq"), "utf8"))?.[1] ?? null;
  }
  return { pgNet: has("pg_net"), vault: has("supabase_vault"), pgmqVersion };
}

/** The pgmq layouts the engine runs on: 1.5 (pgmq 1.5.1, the default) and 1.4 (pgmq 1.4.4). */
export type PgmqShape = "1.4" | "1.5";

/** The layout of a pgmq extension version: `1.4.x` is 1.4, later ones have 1.5's. */
export function pgmqShapeOfVersion(version: string): PgmqShape {
  return version.startsWith("1.4.") ? "1.4" : "1.5";
}

/**
 * Version of the pgmq extension the server installation in use offers, or null when it has none
 * (the OS packages' Postgres, or no Postgres found).
 */
export function serverPgmqVersion(): string | null {
  try {
    return serverExtensions(pgBinDir()).pgmqVersion;
  } catch {
    return null;
  }
}

/**
 * The pgmq layout to reset to. A server with the pgmq extension decides it (the first migration
 * creates the extension at its default version): MDAME_PGMQ_SHAPE may only repeat it. Without the
 * extension, MDAME_PGMQ_SHAPE picks `1.4` or `1.5` (the default) of the pgmq-compatible SQL.
 * Anything else is refused.
 */
export function pgmqShapeFromEnv(value: string | undefined = process.env.MDAME_PGMQ_SHAPE, serverPgmq: string | null = serverPgmqVersion()): PgmqShape {
  let wanted: PgmqShape | undefined;
  if (value === "1.4" || value === "1.5") wanted = value;
  else if (value !== undefined && value !== "") throw new Error(`MDAME_PGMQ_SHAPE must be 1.4 or 1.5, not ${JSON.stringify(value.slice(0, 20))}`);
  if (serverPgmq === null) return wanted ?? "1.5";
  const served = pgmqShapeOfVersion(serverPgmq);
  if (wanted !== undefined && wanted !== served) {
    throw new Error(
      `MDAME_PGMQ_SHAPE=${wanted} cannot be had on this server: its pgmq extension is ${serverPgmq}, which the first migration creates; leave MDAME_PGMQ_SHAPE unset (the layout follows the extension) or use a server whose pgmq is ${wanted}.x (MDAME_PG_BINDIR)`,
    );
  }
  return served;
}
