/**
 * `bun scripts/supabase-pg.ts --root DIR --pgmq GIT@TAG --pg-net GIT@TAG --vault GIT@TAG`
 *
 * Builds a Postgres 15 to test the engine on Supabase's own extensions (docs/reference/supabase-wiring.md,
 * "Running the suite on the real extensions"): a copy of the OS's Postgres 15 (bin, lib, share)
 * under DIR, with pgmq (plain SQL), pg_net and supabase_vault (C, built with PGXS) installed into
 * it from local git copies of their repositories (`GIT` is a git directory, `TAG` a tag it holds),
 * and the script Vault reads its root key from. Postgres finds its lib and share folders relative
 * to its binaries, so the copy runs where it lies. It prints the bin folder last: point
 * `MDAME_PG_BINDIR` at it; the stack then preloads pg_net and Vault (stack/pg-server.ts).
 *
 * Needs `apt-get install postgresql-15 postgresql-server-dev-15 libcurl4-openssl-dev libsodium-dev`.
 * Nothing of those repositories enters the project: this only builds a server to test against.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { UsageError } from "./script-args.ts";

const OS_PG = "/usr/lib/postgresql/15";
const OS_PG_SHARE = "/usr/share/postgresql/15";
const PG_CONFIG = `${OS_PG}/bin/pg_config`;
const USAGE = "usage: bun scripts/supabase-pg.ts --root DIR --pgmq GIT@TAG --pg-net GIT@TAG --vault GIT@TAG\n" +
  "  e.g. --pgmq /src/pgmq.git@v1.5.1 (or @v1.4.4) --pg-net /src/pg_net.git@v0.20.5 --vault /src/vault.git@v0.3.1";

interface Source {
  gitDir: string;
  tag: string;
}

function source(name: string, value: string | undefined): Source {
  if (!value) throw new UsageError(`--${name} is required`);
  const at = value.lastIndexOf("@");
  if (at <= 0 || at === value.length - 1) throw new UsageError(`--${name} must be GIT@TAG (a git directory and a tag it holds), got ${JSON.stringify(value)}`);
  const gitDir = resolve(value.slice(0, at));
  if (!existsSync(gitDir)) throw new UsageError(`--${name}: no such git directory: ${gitDir}`);
  return { gitDir, tag: value.slice(at + 1) };
}

function run(what: string, command: string, args: string[], options: { cwd?: string; input?: Buffer } = {}): Buffer {
  const result = spawnSync(command, args, { cwd: options.cwd, input: options.input, maxBuffer: 512 * 2 ** 20 });
  if (result.error) throw new Error(`${what}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${what}: ${command} ${args.join(" ")} exited ${result.status}\n${result.stderr.toString().trim().slice(-4000)}`);
  }
  return result.stdout;
}

/** A file of the repository at the tag, as text. */
function show(src: Source, path: string): string {
  return run(`reading ${path} at ${src.tag}`, "git", ["--git-dir", src.gitDir, "show", `${src.tag}:${path}`]).toString();
}

function say(line: string): void {
  console.error(`[supabase-pg] ${line}`);
}

function main(argv: string[]): string {
  const { values } = parseArgs({
    args: argv,
    options: { root: { type: "string" }, pgmq: { type: "string" }, "pg-net": { type: "string" }, vault: { type: "string" } },
    strict: true,
    allowPositionals: false,
  });
  if (!values.root) throw new UsageError("--root is required");
  const root = resolve(values.root);
  const pgmq = source("pgmq", values.pgmq);
  const pgNet = source("pg-net", values["pg-net"]);
  const vault = source("vault", values.vault);
  if (!existsSync(PG_CONFIG)) {
    throw new Error(`${PG_CONFIG} is missing: apt-get install postgresql-15 postgresql-server-dev-15 libcurl4-openssl-dev libsodium-dev`);
  }

  say(`copying the OS's Postgres 15 into ${root}`);
  rmSync(root, { recursive: true, force: true });
  cpSync(OS_PG, join(root, OS_PG), { recursive: true, verbatimSymlinks: true });
  cpSync(OS_PG_SHARE, join(root, OS_PG_SHARE), { recursive: true, verbatimSymlinks: true });
  const extensionDir = join(root, OS_PG_SHARE, "extension");

  // pgmq is plain SQL: its control file names the version, its one script installs it.
  const control = show(pgmq, "pgmq-extension/pgmq.control");
  const version = /^default_version\s*=\s*'([^']+)'/m.exec(control)?.[1];
  if (!version) throw new Error(`pgmq ${pgmq.tag}: pgmq-extension/pgmq.control names no default_version`);
  writeFileSync(join(extensionDir, "pgmq.control"), control);
  writeFileSync(join(extensionDir, `pgmq--${version}.sql`), show(pgmq, "pgmq-extension/sql/pgmq.sql"));
  say(`pgmq ${version} installed`);

  const build = mkdtempSync(join(tmpdir(), "supabase-pg-build-"));
  try {
    for (const [name, src] of [["pg_net", pgNet], ["supabase_vault", vault]] as const) {
      const dir = join(build, name);
      mkdirSync(dir);
      const archive = run(`${name} ${src.tag}`, "git", ["--git-dir", src.gitDir, "archive", src.tag]);
      run(`unpacking ${name}`, "tar", ["-x", "-C", dir], { input: archive });
      say(`building ${name} ${src.tag}`);
      run(`building ${name}`, "make", ["-s", "-C", dir, `PG_CONFIG=${PG_CONFIG}`]);
      run(`installing ${name}`, "make", ["-s", "-C", dir, `PG_CONFIG=${PG_CONFIG}`, "install", `DESTDIR=${root}`]);
    }
  } finally {
    rmSync(build, { recursive: true, force: true });
  }

  // Vault asks `<share>/extension/pgsodium_getkey` for its root key: 32 bytes as 64 hex digits.
  const getkey = join(extensionDir, "pgsodium_getkey");
  writeFileSync(getkey, `#!/bin/sh\necho ${randomBytes(32).toString("hex")}\n`);
  chmodSync(getkey, 0o755);
  // The cluster runs as the postgres user, which must read everything the copy holds.
  run("opening the copy to the postgres user", "chmod", ["-R", "a+rX", root]);
  say(`pgmq ${version}, pg_net ${pgNet.tag}, supabase_vault ${vault.tag} in ${root}`);
  return join(root, OS_PG, "bin");
}

try {
  console.log(main(process.argv.slice(2)));
} catch (error) {
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  console.error(`supabase-pg: ${(error as Error).message}${usage ? `\n${USAGE}` : ""}`);
  process.exit(usage ? 2 : 1);
}
