/**
 * `npm test`: every test layer against the local cluster, each step's output in full:
 *   cluster (init + start) -> reset -> unit, in order, with typecheck beside them (reported after
 *   unit); then one pool (scripts/test-pool.ts) for the database layers: db (pgTAP via pg_prove),
 *   integration (a job a file), supabase-extensions (the real pg_net, Vault and pgmq; skipped,
 *   saying why, on a server without them), pgmq-1.4 (the pgTAP files that reach pgmq and the queue
 *   integration tests again, on a stack reset in pgmq 1.4.4's layout) and e2e (a job a file). The
 *   pool's lanes are three whole stacks of the clone
 *   (`.local/`, `.local/stack-b`, `.local/stack-c`) and one for the files that need none; each job
 *   goes to the next free lane, longest first, so the layers run side by side. Each job's output
 *   is printed when it ends, with a line naming its lane and time; the summary gives each layer's
 *   span (its first job's start to its last one's end) and the time its jobs took in all.
 * typecheck counts each checker (deno check, tsc, deno fmt --check) as one passed test when clean,
 * and each error it reports as one failed test.
 * Every step runs even when an earlier one failed. The last line is the summary:
 *   Tests: 42 passed, 0 failed[, 3 skipped]
 * and the exit code is non-zero when anything failed or crashed.
 *
 *   bun scripts/test.ts [--only typecheck,unit,db,integration,supabase-extensions,pgmq-1.4,e2e] [--pgmq-shape 1.4|1.5]
 * --pgmq-shape (or MDAME_PGMQ_SHAPE) picks the pgmq layout the reset installs: 1.5 (pgmq 1.5.1, the
 * default) or 1.4 (pgmq 1.4.4); docs/reference/pgmq.md. On a server with the pgmq extension (MDAME_PG_BINDIR,
 * docs/reference/supabase-wiring.md) the layout is the extension's, and the pgmq-1.4 layer runs only where
 * that is 1.4.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import process from "node:process";
import { ensureRunning, pgEnv, reset } from "../stack/db.ts";
import { pgBinDir, pgmqShapeFromEnv, serverExtensions, serverPgmqVersion } from "../stack/pg-server.ts";
import { paths } from "../stack/paths.ts";
import { localStackEnv } from "../stack/stack-env.ts";
import { stopStack, supervisorPid } from "../stack/stack-control.ts";
import { runTypeChecks } from "./typecheck.ts";
import { type Lane, type PoolJob, readTimes, runPool, writeTimes } from "./test-pool.ts";
import { pgTapFilesReachingPgmq } from "./sql/pgmq-reach.ts";
import { LOCAL_STACK } from "../shared/config/local-stack.ts";

const LAYERS = ["typecheck", "unit", "db", "integration", "supabase-extensions", "pgmq-1.4", "e2e"] as const;

/**
 * The integration tests that drive pgmq directly or through the engine's queue RPCs: the
 * `pgmq-1.4` layer runs them, with the pgTAP files that reach pgmq, again on pgmq 1.4.4's layout (docs/reference/pgmq.md).
 */
const PGMQ_INTEGRATION_TESTS = [
  "pgmq-conformance",
  "stage-queue",
  "worker-queue-read",
  "worker-attempt-limit",
  "step-replay",
  "pipeline-stages",
  "concurrent-triggers",
  "recovery-at-scale",
  "overlapping-runs",
].map((name) => `./tests/integration/${name}.test.ts`);
type Layer = (typeof LAYERS)[number];

/**
 * Integration tests that touch neither the database nor the stack's ports: FFmpeg renders, visual
 * backends and the quality gate. They run beside the others, which mostly wait on Postgres and on
 * processes starting, so the layer takes about as long as its longer half rather than the sum.
 * tests/unit/test-runner.test.ts holds that none of them reaches the database.
 */
export const MEDIA_INTEGRATION_TESTS = [
  "comfyui-backend",
  "plan-render",
  "procedural-backend",
  "quality-gate",
  "render",
  "render-audio",
  "render-cover",
  "render-gemini-voice",
  "render-parts",
  "render-peak-correction",
  "render-segments",
  "visual-backends",
  "visual-fallback",
].map((name) => `./tests/integration/${name}.test.ts`);

/**
 * The pool's other stacks, each with its own state under `.local/`, cluster and ports (the first
 * is the clone's own, lane A).
 */
const EXTRA_STACKS: Record<string, ReturnType<typeof extraStack>> = {
  B: extraStack(".local/stack-b", 1100),
  C: extraStack(".local/stack-c", 2200),
  // The lane of WAITING_E2E_TESTS, beside the three busy ones.
  D: extraStack(".local/stack-d", 3300),
};

/**
 * The e2e files that spend their time waiting, not computing (on pg_cron's minutes while the edge
 * host is frozen): they run on a stack of their own (lane D, which takes nothing else), so they hold
 * none of the lanes the busy jobs share the cores on.
 */
export const WAITING_E2E_TESTS = ["watchdog"].map((name) => `./tests/e2e/${name}.test.ts`);

function extraStack(localDir: string, portOffset: number) {
  return {
    localDir,
    dbPort: LOCAL_STACK.dbPort + portOffset,
    edgePort: LOCAL_STACK.edgePort + portOffset,
    emulatorPort: LOCAL_STACK.emulatorPort + portOffset,
  } as const;
}

/**
 * Integration files that move the stack's own paths, ports or clusters (or copy the clone): they
 * run on the first stack, where the clone's defaults are theirs.
 */
export const FIRST_STACK_ONLY_TESTS = ["clean", "cluster-outside-clone", "db-port", "db-reset", "stack-ports"].map(
  (name) => `./tests/integration/${name}.test.ts`,
);

/** Each job's seconds when it last passed here, which orders the next run's pool (longest first). */
const TIMES_FILE = join(paths.local, "test-times.json");

/**
 * What an e2e file takes on this machine (2 cores, beside the other layers), for the pool's order
 * on a clone with no times of its own yet: the long runs must start first.
 */
const E2E_EXPECTED_S: Record<string, number> = {
  "./tests/e2e/soak.test.ts": 650,
  "./tests/e2e/demo.test.ts": 420,
  "./tests/e2e/crash-recovery-2.test.ts": 350,
  "./tests/e2e/crash-recovery-1.test.ts": 270,
  "./tests/e2e/third-language.test.ts": 140,
  // Mostly waiting on pg_cron's minutes while the edge host is frozen: little CPU.
  "./tests/e2e/watchdog.test.ts": 420,
};

/** Another stack's environment: the tests' usual one, computed under its paths and ports. */
async function extraStackEnv(stack: ReturnType<typeof extraStack>): Promise<Record<string, string | undefined>> {
  const vars = {
    MDAME_LOCAL_DIR: join(paths.root, stack.localDir),
    MDAME_DB_PORT: String(stack.dbPort),
    MDAME_EDGE_PORT: String(stack.edgePort),
    MDAME_EMULATOR_PORT: String(stack.emulatorPort),
  };
  const { code, output } = await stream([process.execPath, "scripts/stack-env-json.ts"], { ...process.env, ...vars }, true);
  if (code !== 0) throw new Error(`the environment of the stack in ${stack.localDir} could not be computed:\n${output}`);
  return { ...process.env, ...vars, ...(JSON.parse(output.trim().split("\n").pop()!) as Record<string, string>) };
}

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

interface Outcome extends Counts {
  /** passed | failed | skipped (nothing to run) | crashed (failed without a countable test). */
  outcome: "passed" | "failed" | "skipped" | "crashed";
  note?: string;
}

interface StepResult extends Outcome {
  name: string;
  /** Wall time: a pooled layer's span, from its first job's start to its last one's end. */
  seconds: number;
  /** A pooled layer's jobs' seconds, added up. */
  busy?: number;
}

/** A pool job's outcome, its layer and its output (printed when it ends). */
interface JobResult extends Outcome {
  layer: Layer;
  output: string;
}
type JobRun = (laneEnv: Record<string, string | undefined>) => Promise<Outcome & { output: string }>;

/** An outcome from a run's exit code and its counts: a non-zero exit with no failed test crashed (one failure). */
export function judge(code: number, counts: Counts, tool: string): Outcome {
  // A crash is one failure of its own, so the closing line never says 0 failed for it.
  if (code !== 0 && counts.failed === 0) return { ...counts, failed: 1, outcome: "crashed", note: `${tool} exited with ${code}` };
  return { ...counts, outcome: counts.failed > 0 || code !== 0 ? "failed" : "passed" };
}

function describeLane(lane: Lane): string {
  if (!lane.hasStack) return `${lane.name}: files that need no stack`;
  return lane.name === "A" ? "A: .local" : `${lane.name}: ${EXTRA_STACKS[lane.name]!.localDir}`;
}

function parseOnly(argv: string[]): Set<Layer> {
  const index = argv.findIndex((a) => a === "--only" || a.startsWith("--only="));
  if (index === -1) return new Set(LAYERS);
  const value = argv[index]!.includes("=") ? argv[index]!.split("=")[1]! : argv[index + 1] ?? "";
  const names = value.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(LAYERS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) {
    console.error(`--only takes a comma-separated list of ${LAYERS.join(", ")}${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}`);
    process.exit(2);
  }
  return new Set(names as Layer[]);
}

/** Files under `dir` (recursively) whose names end with `suffix`, sorted. */
function findFiles(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") found.push(...findFiles(path, suffix));
    else if (entry.isFile() && entry.name.endsWith(suffix)) found.push(path);
  }
  return found.sort();
}

/**
 * Reads bun test's file header lines (a test file's path and a colon, printed when the file starts, before its
 * hooks) as they arrive, so each file's wall time, hooks included, is known.
 */
export class FileClock {
  readonly seconds = new Map<string, number>();
  private current: { file: string; since: number } | null = null;
  private partial = "";

  feed(chunk: string, now = performance.now()): void {
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) {
      const header = /^(?:\.\/)?(tests\/\S+\.test\.ts):\s*$/.exec(line.trim());
      if (header) {
        this.close(now);
        this.current = { file: header[1]!, since: now };
      }
    }
  }

  close(now = performance.now()): void {
    if (this.current) this.seconds.set(this.current.file, (this.seconds.get(this.current.file) ?? 0) + (now - this.current.since) / 1000);
    this.current = null;
  }
}

/** Every file's time of the layer so far, for its slowest-files lines. */
const layerFiles = new Map<string, number>();

/**
 * Runs a command with its output streamed to ours (or only kept, with `quiet`: a pool job's, printed
 * when it ends, whose time the pool measures); resolves with the exit code and the output. A
 * streamed bun test run's file times go to `layerFiles`.
 */
function stream(argv: string[], env: Record<string, string | undefined>, quiet = false): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: paths.root, env, stdio: ["ignore", "pipe", "pipe"] });
    const clock = quiet ? null : new FileClock();
    let output = "";
    const take = (chunk: Buffer, to: NodeJS.WriteStream) => {
      output += chunk;
      clock?.feed(chunk.toString());
      if (!quiet) to.write(chunk);
    };
    child.stdout!.on("data", (chunk: Buffer) => take(chunk, process.stdout));
    child.stderr!.on("data", (chunk: Buffer) => take(chunk, process.stderr));
    child.on("error", (error) => {
      output += `\n${error.message}\n`;
      resolve({ code: 127, output });
    });
    child.on("close", (code, signal) => {
      clock?.close();
      for (const [file, seconds] of clock?.seconds ?? []) layerFiles.set(file, (layerFiles.get(file) ?? 0) + seconds);
      resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** The slowest files of a layer, one line each, longest first. */
export function slowestFiles(files: Map<string, number>, count = 8): string[] {
  return [...files].sort(([, a], [, b]) => b - a).slice(0, count).map(([file, seconds]) => `${seconds.toFixed(1).padStart(7)} s  ${file}`);
}

function lastNumber(output: string, pattern: RegExp): number {
  const matches = [...output.matchAll(pattern)];
  return matches.length ? Number(matches[matches.length - 1]![1]) : 0;
}

/**
 * Counts from bun test's closing lines (` 12 pass`, ` 1 skip`, ` 1 todo`, ` 0 fail`). Skipped
 * tests are counted from bun's `(skip) <describe> > <test>` lines where it prints them: its
 * closing count also counts a skipped describe's hooks (listed as `(unnamed)`), and a line may be
 * printed twice (again in the closing summary).
 */
export function parseBunTest(output: string): Counts {
  const listed = new Set(output.split("\n").filter((line) => line.startsWith("(skip) ")));
  const skippedTests = [...listed].filter((line) => !line.endsWith("> (unnamed)")).length;
  return {
    passed: lastNumber(output, /^\s*(\d+) pass\s*$/gm),
    failed: lastNumber(output, /^\s*(\d+) fail\s*$/gm),
    skipped: (listed.size > 0 ? skippedTests : lastNumber(output, /^\s*(\d+) skip\s*$/gm)) + lastNumber(output, /^\s*(\d+) todo\s*$/gm),
  };
}

/**
 * Counts from pg_prove (TAP::Harness): `Files=2, Tests=14, ...` for the total, `Failed: N` per file
 * in the summary report; a file reported without failed tests (bad plan, died) counts as one failure.
 */
export function parsePgProve(output: string): Counts {
  const total = lastNumber(output, /^Files=\d+, Tests=(\d+)/gm);
  const report = output.includes("Test Summary Report") ? output.slice(output.lastIndexOf("Test Summary Report")).split("\n") : [];
  let failedTests = 0;
  let brokenFiles = 0;
  for (const [i, line] of report.entries()) {
    const entry = /Tests: \d+ Failed: (\d+)\)\s*$/.exec(line);
    if (!entry) continue;
    const n = Number(entry[1]);
    failedTests += n;
    const details = [];
    for (let j = i + 1; j < report.length && /^\s+\S/.test(report[j]!); j++) details.push(report[j]);
    // A file that died or broke its plan without a failed assertion still failed.
    if (n === 0 && details.some((d) => /Parse errors|Non-zero (exit|wait)/.test(d!))) brokenFiles += 1;
  }
  let failed = failedTests + brokenFiles;
  if (failed === 0 && /^Result: FAIL/m.test(output)) failed = 1;
  return { passed: Math.max(0, total - failedTests), failed, skipped: 0 };
}

function heading(index: number, total: number, title: string): void {
  console.log(`\n${"=".repeat(72)}\n== [${index}/${total}] ${title}\n${"=".repeat(72)}`);
}

async function main(): Promise<number> {
  const runStarted = performance.now();
  // Tests run against the emulators whatever a developer's .env says.
  process.env.MDAME_EMULATE = "all";
  // A test file's reset copies the template of a CLI reset of the same inputs (stack/db-template.ts);
  // tests/integration/db-reset.test.ts still resets through the CLI, and compares the two.
  process.env.MDAME_RESET_TEMPLATE ??= "1";
  const only = parseOnly(process.argv.slice(2));
  const shapeArg = process.argv.findIndex((a) => a === "--pgmq-shape" || a.startsWith("--pgmq-shape="));
  if (shapeArg !== -1) {
    const value = process.argv[shapeArg]!.includes("=") ? process.argv[shapeArg]!.split("=")[1] : process.argv[shapeArg + 1];
    process.env.MDAME_PGMQ_SHAPE = value ?? "";
  }
  // Read before any step, so a bad value stops the run instead of crashing the reset; the tests inherit it.
  try {
    process.env.MDAME_PGMQ_SHAPE = pgmqShapeFromEnv();
  } catch (error) {
    console.error(`--pgmq-shape: ${(error as Error).message}`);
    process.exit(2);
  }
  const serverPgmq = serverPgmqVersion();
  console.log(`pgmq shape: ${process.env.MDAME_PGMQ_SHAPE}${serverPgmq === null ? " (pgmq-compatible SQL)" : ` (the server's pgmq extension ${serverPgmq})`}`);
  const needsDb = only.has("db") || only.has("integration") || only.has("supabase-extensions") || only.has("pgmq-1.4") || only.has("e2e");
  const supervisorBefore = supervisorPid();
  const env = needsDb ? { ...process.env, ...localStackEnv(), ...pgEnv() } : { ...process.env, ...localStackEnv() };
  const results: StepResult[] = [];

  /** A step's run; `seconds` when the step ran beside the others and its own time is not the wait for it. */
  type Step = { name: string; run: () => Promise<Omit<StepResult, "name" | "seconds"> & { seconds?: number }> };
  const steps: Step[] = [];
  const crashed = (note: string) => ({ outcome: "crashed" as const, passed: 0, failed: 1, skipped: 0, note });
  const nothing = (note: string) => ({ outcome: "skipped" as const, passed: 0, failed: 0, skipped: 0, note });

  // The type checks need neither the cluster nor the database: they start now, beside cluster, reset
  // and unit (each mostly one core of two), and are reported as their own step after them.
  const typecheckStarted = performance.now();
  const typecheck = only.has("typecheck") ? runTypeChecks(false).then((r) => ({ ...r, seconds: (performance.now() - typecheckStarted) / 1000 })) : null;

  if (needsDb) {
    steps.push({
      name: "cluster",
      run: async () => {
        await ensureRunning();
        return { outcome: "passed", passed: 0, failed: 0, skipped: 0 };
      },
    });
    steps.push({
      name: "reset",
      run: async () => {
        await reset();
        return { outcome: "passed", passed: 0, failed: 0, skipped: 0 };
      },
    });
  }

  const bunStep = (layer: Layer): Step => ({
    name: layer,
    run: async () => {
      const dir = join(paths.root, "tests", layer);
      const files = findFiles(dir, ".test.ts");
      if (files.length === 0) return nothing(`no tests/${layer}/**/*.test.ts`);
      const { code, output } = await stream([process.execPath, "test", `./${relative(paths.root, dir)}`], env);
      return judge(code, parseBunTest(output), "bun test");
    },
  });

  if (only.has("unit")) steps.push(bunStep("unit"));
  if (typecheck) {
    steps.push({
      name: "typecheck",
      run: async () => {
        const { output, seconds, passed, failed } = await typecheck;
        process.stdout.write(output);
        return { passed, failed, skipped: 0, outcome: failed > 0 ? "failed" : "passed", seconds };
      },
    });
  }
  /** pg_prove over the pgTAP files (`choose` picks some of them). */
  const pgTap = async (tapEnv: Record<string, string | undefined>, choose = (files: string[]) => files): Promise<Outcome & { output: string }> => {
    const files = choose(findFiles(join(paths.root, "supabase", "tests"), ".test.sql").map((f) => relative(paths.root, f)));
    if (files.length === 0) return { ...nothing("no supabase/tests/**/*.test.sql"), output: "" };
    // psql from the server's own bindir: Debian's /usr/bin/psql is a Perl wrapper (pg_wrapper),
    // started once per file. Through it, pg_prove's side of the 396 files took 36 s of CPU (the
    // machine's: 72 s); with this psql, 22 s (59 s).
    const { code, output } = await stream(["pg_prove", "--psql-bin", join(pgBinDir(), "psql"), "--failures", ...files], tapEnv, true);
    return { ...judge(code, parsePgProve(output), "pg_prove"), output };
  };
  /** A fresh database on the lane's stack (a copy of the reset template: stack/db-template.ts). */
  const resetLane = async (laneEnv: Record<string, string | undefined>, what: string): Promise<void> => {
    const { code, output } = await stream([process.execPath, "stack/db-reset.ts"], laneEnv, true);
    if (code !== 0) throw new Error(`${what}: the database could not be reset:\n${output}`);
  };
  const bunFiles = (files: string[], timeoutMs: number) => async (laneEnv: Record<string, string | undefined>): Promise<Outcome & { output: string }> => {
    const { code, output } = await stream([process.execPath, "test", "--timeout", String(timeoutMs), ...files], laneEnv, true);
    return { ...judge(code, parseBunTest(output), "bun test"), output };
  };

  /** The pool's jobs: every database layer's, each a file or a whole step. */
  const jobs: PoolJob<JobResult>[] = [];
  const times = readTimes(TIMES_FILE);
  const poolLayers = new Set<Layer>();
  const job = (layer: Layer, name: string, options: { lane?: string; needsStack?: boolean; expected: number }, run: JobRun): void => {
    poolLayers.add(layer);
    jobs.push({
      name,
      lane: options.lane,
      needsStack: options.needsStack ?? true,
      expected: times[name] ?? options.expected,
      run: async (lane) => {
        try {
          return { layer, ...(await run(lane.hasStack ? await laneEnv(lane.name) : env)) };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return { layer, ...crashed(message.split("\n")[0]!), output: `${message}\n` };
        }
      },
    });
  };

  if (only.has("db")) {
    job("db", "pgTAP (supabase/tests)", { expected: 80 }, async (laneEnv) => {
      await resetLane(laneEnv, "pgTAP");
      return await pgTap(laneEnv);
    });
  }
  if (only.has("integration")) {
    for (const file of findFiles(join(paths.root, "tests", "integration"), ".test.ts").map((f) => `./${relative(paths.root, f)}`)) {
      const media = MEDIA_INTEGRATION_TESTS.includes(file);
      // They start processes (the CLI, the edge host, FFmpeg) on cores shared by every lane:
      // bun's 5-s default per test is too tight for that; a test that names its own keeps it.
      job(
        "integration",
        file,
        { lane: FIRST_STACK_ONLY_TESTS.includes(file) ? "A" : undefined, needsStack: !media, expected: media ? 40 : 20 },
        bunFiles([file], 30_000),
      );
    }
  }
  if (only.has("supabase-extensions")) {
    // Its tests skip themselves on a server without the extensions, their hooks with them.
    job("supabase-extensions", "tests/supabase-extensions", { expected: 10 }, async (laneEnv) => {
      const extensions = serverExtensions(pgBinDir());
      const missing = [!extensions.pgNet && "pg_net", !extensions.vault && "supabase_vault", extensions.pgmqVersion === null && "pgmq"].filter(Boolean);
      const result = await bunFiles(["./tests/supabase-extensions"], 30_000)(laneEnv);
      if (result.outcome === "passed" && missing.length > 0 && result.passed === 0) {
        return {
          ...result,
          outcome: "skipped",
          note: `${pgBinDir()} has no ${missing.join(", ")}: set MDAME_PG_BINDIR to a Postgres with Supabase's extensions (docs/reference/supabase-wiring.md)`,
        };
      }
      return result;
    });
  }
  // On the pgmq-compatible SQL, only when the run is on the default (1.5) layout: --pgmq-shape 1.4
  // already runs everything there. On a pgmq extension, the server's version decides.
  if (only.has("pgmq-1.4") && (serverPgmq !== null || process.env.MDAME_PGMQ_SHAPE !== "1.4")) {
    // The pgTAP files that reach pgmq and the queue integration tests, on pgmq 1.4.4's layout, on the third stack
    // (its next job resets it back to the run's layout).
    job("pgmq-1.4", "pgmq-1.4 (pgTAP and the queue tests on pgmq 1.4.4's layout)", { lane: "C", expected: 300 }, async (laneEnv) => {
      if (serverPgmq !== null && process.env.MDAME_PGMQ_SHAPE !== "1.4") {
        return {
          ...nothing(
            `the server's pgmq extension is ${serverPgmq}, so pgmq 1.4's layout cannot be had here; run this layer with MDAME_PG_BINDIR on a Postgres whose pgmq is 1.4.x (docs/reference/supabase-wiring.md)`,
          ),
          output: "",
        };
      }
      const shaped = { ...laneEnv, MDAME_PGMQ_SHAPE: "1.4" };
      await resetLane(shaped, "pgmq-1.4");
      // The pgTAP files that reach pgmq (scripts/sql/pgmq-reach.ts): the others run the same statements on either layout.
      const tap = await pgTap(shaped, (files) => pgTapFilesReachingPgmq(paths.root, files));
      const queue = await bunFiles(PGMQ_INTEGRATION_TESTS, 30_000)(shaped);
      const passed = tap.passed + queue.passed;
      const failed = tap.failed + queue.failed;
      const outcome = [tap.outcome, queue.outcome].includes("crashed") ? "crashed" : failed > 0 ? "failed" : "passed";
      return { passed, failed, skipped: 0, outcome, output: `${tap.output}\n${queue.output}` };
    });
  }
  if (only.has("e2e")) {
    for (const file of findFiles(join(paths.root, "tests", "e2e"), ".test.ts").map((f) => `./${relative(paths.root, f)}`)) {
      job("e2e", file, { lane: WAITING_E2E_TESTS.includes(file) ? "D" : undefined, expected: E2E_EXPECTED_S[file] ?? 200 }, bunFiles([file], 600_000));
    }
  }

  /**
   * The lanes: the first stack (the clone's own) and, when the pool has more than one job, two more
   * stacks, a lane for the jobs that need no stack and lane D for the waiting e2e tests. Another stack's cluster is created and reset
   * before its first job, as the first one was.
   */
  const lanes: Lane[] = [{ name: "A", hasStack: true }];
  if (jobs.length > 1 || jobs.some((j) => j.lane === "C")) lanes.push({ name: "B", hasStack: true }, { name: "C", hasStack: true });
  if (jobs.some((j) => !j.needsStack)) lanes.push({ name: "media", hasStack: false });
  if (jobs.some((j) => j.lane === "D")) lanes.push({ name: "D", hasStack: true, pinnedOnly: true });
  const laneEnvs = new Map<string, Promise<Record<string, string | undefined>>>();
  function laneEnv(name: string): Promise<Record<string, string | undefined>> {
    if (name === "A") return Promise.resolve(env);
    if (!laneEnvs.has(name)) {
      laneEnvs.set(
        name,
        extraStackEnv(EXTRA_STACKS[name]!).then(async (laneEnv) => {
          await resetLane(laneEnv, `stack ${name} (${EXTRA_STACKS[name]!.localDir})`);
          return laneEnv;
        }),
      );
    }
    return laneEnvs.get(name)!;
  }

  for (const [i, step] of steps.entries()) {
    heading(i + 1, steps.length + (jobs.length ? 1 : 0), step.name);
    layerFiles.clear();
    const started = performance.now();
    let result: Outcome & { seconds?: number };
    try {
      result = await step.run();
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      result = crashed(error instanceof Error ? error.message.split("\n")[0]! : String(error));
    }
    const { seconds = (performance.now() - started) / 1000, ...outcome } = result;
    results.push({ name: step.name, seconds, ...outcome });
    const counts = result.outcome === "skipped" && !result.skipped
      ? ""
      : ` (${result.passed} passed, ${result.failed} failed${result.skipped ? `, ${result.skipped} skipped` : ""})`;
    console.log(`-- ${step.name}: ${result.outcome}${counts}${result.note ? ` - ${result.note}` : ""} in ${seconds.toFixed(1)} s`);
    if (layerFiles.size > 1) console.log(`-- ${step.name}: its slowest files (wall time, hooks included):\n${slowestFiles(layerFiles).join("\n")}`);
  }

  if (jobs.length > 0) {
    heading(
      steps.length + 1,
      steps.length + 1,
      `${[...poolLayers].join(", ")}: ${jobs.length} jobs on ${lanes.length} lanes (${lanes.map(describeLane).join("; ")})`,
    );
    const poolStarted = performance.now();
    const at = () => `${((performance.now() - poolStarted) / 1000).toFixed(0).padStart(5)} s`;
    let doneCount = 0;
    const finished = await runPool(jobs, lanes, {
      onStart: (j, lane) => console.log(`-- ${at()} [${lane.name}] start ${j.name}`),
      onDone: ({ job: j, lane, result, seconds }) => {
        doneCount += 1;
        process.stdout.write(result.output.endsWith("\n") || !result.output ? result.output : `${result.output}\n`);
        const counts = `${result.passed} passed, ${result.failed} failed${result.skipped ? `, ${result.skipped} skipped` : ""}`;
        console.log(`-- ${at()} [${lane.name}] ${result.outcome} ${j.name} (${counts}) in ${seconds.toFixed(1)} s; ${doneCount} of ${jobs.length} done`);
      },
    });
    for (const name of laneEnvs.keys()) await stream([process.execPath, "stack/db.ts", "stop"], await laneEnv(name), true);
    // A job that failed may have stopped early: only the others' times order the next run.
    writeTimes(TIMES_FILE, Object.fromEntries(finished.filter((f) => ["passed", "skipped"].includes(f.result.outcome)).map((f) => [f.job.name, f.seconds])));
    for (const layer of LAYERS) {
      const ofLayer = finished.filter((f) => f.result.layer === layer);
      if (ofLayer.length === 0) continue;
      const sum = (key: keyof Counts) => ofLayer.reduce((n, f) => n + f.result[key], 0);
      const outcomes = ofLayer.map((f) => f.result.outcome);
      const outcome = outcomes.includes("crashed") ? "crashed" : sum("failed") > 0 ? "failed" : outcomes.every((o) => o === "skipped") ? "skipped" : "passed";
      const notes = [...new Set(ofLayer.map((f) => f.result.note).filter(Boolean))];
      const busy = ofLayer.reduce((n, f) => n + f.seconds, 0);
      // A layer's time: from its first job's start to its last one's end, beside the others.
      const span = Math.max(...ofLayer.map((f) => f.endedAt)) - Math.min(...ofLayer.map((f) => f.endedAt - f.seconds));
      results.push({
        name: layer,
        outcome,
        passed: sum("passed"),
        failed: sum("failed"),
        skipped: sum("skipped"),
        seconds: span,
        busy,
        note: notes.join("; ") || undefined,
      });
      if (ofLayer.length > 1) {
        console.log(`-- ${layer}: its slowest jobs:\n${slowestFiles(new Map(ofLayer.map((f) => [f.job.name, f.seconds]))).join("\n")}`);
      }
    }
    console.log(`-- the pool took ${((performance.now() - poolStarted) / 1000).toFixed(1)} s`);
  }

  // A supervisor that a test started and did not stop would outlive the run.
  const leftover = supervisorPid();
  if (leftover !== null && leftover !== supervisorBefore) {
    console.log(`\nstopping the stack supervisor (pid ${leftover}) a test left running`);
    await stopStack().catch((error) => console.error((error as Error).message));
  }

  console.log(`\n${"-".repeat(72)}`);
  for (const r of results) {
    const counts = r.outcome === "skipped" && !r.skipped ? "no tests" : `${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ""}`;
    const busy = r.busy === undefined ? "" : `  (jobs ${r.busy.toFixed(0)} s)`;
    console.log(`${r.name.padEnd(19)} ${r.outcome.padEnd(8)} ${counts.padEnd(36)} ${r.seconds.toFixed(1).padStart(6)} s${busy}`);
  }
  for (const r of results) if (r.outcome === "skipped" && r.note) console.log(`${r.name} skipped: ${r.note}`);
  const total = results.reduce((acc, r) => ({ passed: acc.passed + r.passed, failed: acc.failed + r.failed, skipped: acc.skipped + r.skipped }), {
    passed: 0,
    failed: 0,
    skipped: 0,
  });
  const anyBad = results.some((r) => r.outcome === "failed" || r.outcome === "crashed");
  console.log(`all layers: ${((performance.now() - runStarted) / 1000).toFixed(1)} s of wall time`);
  console.log(`Tests: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}`);
  return anyBad || total.failed > 0 ? 1 : 0;
}

if (import.meta.main) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      console.log("Tests: 0 passed, 1 failed");
      process.exit(1);
    },
  );
}
