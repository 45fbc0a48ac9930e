#!/usr/bin/env node
// Makes this machine able to run the project: OS packages (Postgres 15 with pg_cron and pgTAP,
// FFmpeg, espeak-ng, Chromium) and node_modules. Runs before every npm script, so the common case (all
// present) only looks at a few files and returns in milliseconds.
//
// Plain Node ESM with no dependencies: it runs before `npm ci` has.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Debian packages and, for each, a file it installs (checked first, as a cheap presence test). */
const APT_PACKAGES = {
  "postgresql-15": "/usr/lib/postgresql/15/bin/postgres",
  "postgresql-15-cron": "/usr/lib/postgresql/15/lib/pg_cron.so",
  "postgresql-15-pgtap": "/usr/share/postgresql/15/extension/pgtap.control",
  // pg_prove: only a recommendation of postgresql-15-pgtap, so named explicitly.
  "libtap-parser-sourcehandler-pgtap-perl": "/usr/bin/pg_prove",
  ffmpeg: "/usr/bin/ffmpeg",
  "espeak-ng": "/usr/bin/espeak-ng",
  // The caption font the renders burn in (DejaVu Sans Bold: Latin, Greek, Cyrillic).
  "fonts-dejavu-core": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
  // Caption fonts of other scripts (shared/text/fonts.ts picks one from the text): Noto Sans Thai,
  // Devanagari, Arabic, Hebrew, Bengali, Tamil... and Noto Sans CJK for Chinese, Japanese, Korean.
  "fonts-noto-core": "/usr/share/fonts/truetype/noto/NotoSansThai-Bold.ttf",
  "fonts-noto-cjk": "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
  // The headless browser of the dashboard's browser test (puppeteer-core drives it; nothing downloads one).
  // CHROMIUM_PATH names another Chromium or Chrome instead.
  chromium: "/usr/bin/chromium",
};

/** The browser the dashboard's tests drive: CHROMIUM_PATH, else Debian's chromium. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH?.trim() || null;

/** Tools the project calls, for machines that are not Debian (checked on PATH). */
const TOOLS = ["pg_ctl", "psql", "pg_prove", "ffmpeg", "espeak-ng"];

const say = (line) => console.log(`[bootstrap] ${line}`);

function fail(lines) {
  for (const line of lines) console.error(`[bootstrap] ${line}`);
  process.exit(1);
}

function run(command, args, env = {}) {
  say(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, ...env } });
  if (result.error) fail([`could not run ${command}: ${result.error.message}`]);
  if (result.status !== 0) fail([`${command} exited with ${result.status ?? result.signal}`]);
}

function isDebian() {
  return existsSync("/etc/debian_version") && existsSync("/usr/bin/apt-get") && existsSync("/usr/bin/dpkg-query");
}

function onPath(tool) {
  return (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(join(dir, tool)));
}

/** Packages whose marker file is missing and that dpkg does not report as installed. */
function missingAptPackages() {
  const suspects = Object.entries(APT_PACKAGES)
    .filter(([name, marker]) => !existsSync(marker) && !(name === "chromium" && CHROMIUM_PATH !== null))
    .map(([name]) => name);
  if (suspects.length === 0) return [];
  const query = spawnSync("dpkg-query", ["-W", "-f=${Package} ${db:Status-Status}\n", ...suspects], { encoding: "utf8" });
  const installed = new Set(
    (query.stdout ?? "").split("\n").filter((line) => line.endsWith(" installed")).map((line) => line.split(" ")[0]),
  );
  return suspects.filter((name) => !installed.has(name));
}

function ensureChromiumPath() {
  if (CHROMIUM_PATH !== null && !existsSync(CHROMIUM_PATH)) {
    fail([`CHROMIUM_PATH is ${CHROMIUM_PATH}, which does not exist: point it at a Chromium or Chrome binary, or unset it to use /usr/bin/chromium`]);
  }
}

function ensureOsPackages() {
  ensureChromiumPath();
  if (!isDebian()) {
    const absent = TOOLS.filter((tool) => !onPath(tool) && !existsSync(join("/usr/lib/postgresql/15/bin", tool)));
    if (CHROMIUM_PATH === null && !existsSync(APT_PACKAGES.chromium)) absent.push("chromium (or set CHROMIUM_PATH)");
    if (absent.length === 0) return;
    fail([
      `missing tools: ${absent.join(", ")}. This is not a Debian/Ubuntu machine, so install them yourself:`,
      "  PostgreSQL 15 with the pg_cron and pgTAP extensions (and pg_prove), FFmpeg, espeak-ng, Chromium (the dashboard's browser test)",
    ]);
  }
  const missing = missingAptPackages();
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot) {
    fail([
      `missing packages: ${missing.join(" ")}. Install them as root, then rerun:`,
      `  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing.join(" ")}`,
    ]);
  }
  say(`installing missing packages: ${missing.join(" ")}`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update", "-qq"], env);
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], env);
  const still = missingAptPackages();
  if (still.length > 0) fail([`still missing after apt-get install: ${still.join(" ")}`]);
}

/**
 * `npm ci` when node_modules is absent or was installed from another package-lock.json. The stamp
 * records the lock's hash; without a stamp, npm's own node_modules/.package-lock.json must be newer
 * than package-lock.json.
 */
function ensureNodeModules() {
  const lock = join(ROOT, "package-lock.json");
  const modules = join(ROOT, "node_modules");
  const npmState = join(modules, ".package-lock.json");
  const stamp = join(modules, ".mdame-bootstrap-stamp");
  const lockHash = createHash("sha256").update(readFileSync(lock)).digest("hex");

  let reason = null;
  if (!existsSync(npmState)) {
    reason = "node_modules is absent";
  } else if (existsSync(stamp)) {
    if (readFileSync(stamp, "utf8").trim() !== lockHash) reason = "package-lock.json changed since the last install";
  } else if (statSync(npmState).mtimeMs < statSync(lock).mtimeMs) {
    reason = "node_modules is older than package-lock.json";
  }

  if (reason) {
    say(`${reason}: running npm ci`);
    run("npm", ["ci", "--no-audit", "--no-fund"]);
  }
  if (reason || !existsSync(stamp)) writeFileSync(stamp, `${lockHash}\n`);
}

const started = performance.now();
ensureOsPackages();
ensureNodeModules();
say(`OS packages and node_modules are in place (${Math.round(performance.now() - started)} ms)`);
