/**
 * `npm test`: every test layer against the local cluster, in order, each step streamed in full:
 *   typecheck -> cluster (init + start) -> reset -> unit -> db (pgTAP via pg_prove) -> integration
 *   -> supabase-extensions (the real pg_net, Vault and pgmq; skipped, saying why, on a server without them)
 *   -> e2e, and beside it pgmq-1.4 (a third stack reset in pgmq 1.4.4's layout; pgTAP and the queue
 *      integration tests again). Run without e2e, pgmq-1.4 resets the first stack to 1.4 and back.
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
import { runTypeCheck, typeChecks } from "./typecheck.ts";
import { LOCAL_STACK } from "../shared/config/local-stack.ts";

const LAYERS = ["typecheck", "unit", "db", "integration", "supabase-extensions", "pgmq-1.4", "e2e"] as const;

/**
 * The integration tests that drive pgmq directly or through the engine's queue RPCs: the
 * `pgmq-1.4` layer runs them, with every pgTAP file, again on pgmq 1.4.4's layout (docs/reference/pgmq.md).
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
  "render-gemini-voice",
  "render-parts",
  "render-segments",
  "visual-backends",
  "visual-fallback",
].map((name) => `./tests/integration/${name}.test.ts`);

/**
 * Other whole local stacks of the clone, each with its own state under `.local/`, cluster and ports:
 * the integration and e2e layers each run about half their files on the second, beside the others;
 * the pgmq-1.4 layer runs on the third, beside the e2e layer. Those tests mostly wait on Postgres and
 * on processes starting, so stacks side by side take about as long as the longest.
 */
const SECOND_STACK = extraStack(".local/stack-b", 1100);
const THIRD_STACK = extraStack(".local/stack-c", 2200);

function extraStack(localDir: string, portOffset: number) {
  return {
    localDir,
    dbPort: LOCAL_STACK.dbPort + portOffset,
    edgePort: LOCAL_STACK.edgePort + portOffset,
    emulatorPort: LOCAL_STACK.emulatorPort + portOffset,
  } as const;
}

/**
 * The e2e files of the second stack; the first keeps the others. The crash runs are two files, a
 * pair of runs each (about 6 minutes apiece here), so each stack takes one beside the soak or the
 * demo and the third language.
 */
export const E2E_SECOND_STACK_TESTS = ["crash-recovery-2", "demo", "third-language"].map((name) => `./tests/e2e/${name}.test.ts`);

/**
 * Integration files that move the stack's own paths, ports or clusters (or copy the clone): they
 * stay on the first stack, where the clone's defaults are theirs.
 */
export const FIRST_STACK_ONLY_TESTS = ["clean", "cluster-outside-clone", "db-port", "db-reset", "stack-ports"].map(
  (name) => `./tests/integration/${name}.test.ts`,
);

/**
 * The database files of the integration layer, shared between the two stacks: the pinned ones on
 * the first, the others in name order each to the stack holding fewer files so far.
 */
export function splitIntegrationFiles(files: string[]): { first: string[]; second: string[] } {
  const first = files.filter((f) => FIRST_STACK_ONLY_TESTS.includes(f));
  const second: string[] = [];
  for (const file of files.filter((f) => !FIRST_STACK_ONLY_TESTS.includes(f)).sort()) {
    (second.length < first.length ? second : first).push(file);
  }
  return { first, second };
}

/** Another stack's environment: the tests' usual one, computed under its paths and ports. */
async function extraStackEnv(stack: ReturnType<typeof extraStack>, extra: Record<string, string> = {}): Promise<Record<string, string | undefined>> {
  const vars = {
    ...extra,
    MDAME_LOCAL_DIR: join(paths.root, stack.localDir),
    MDAME_DB_PORT: String(stack.dbPort),
    MDAME_EDGE_PORT: String(stack.edgePort),
    MDAME_EMULATOR_PORT: String(stack.emulatorPort),
  };
  const { code, output } = await stream([process.execPath, "scripts/stack-env-json.ts"], { ...process.env, ...vars }, true);
  if (code !== 0) throw new Error(`the environment of the stack in ${stack.localDir} could not be computed:\n${output}`);
  return { ...process.env, ...vars, ...(JSON.parse(output.trim().split("\n").pop()!) as Record<string, string>) };
}

const secondStackEnv = () => extraStackEnv(SECOND_STACK);

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

interface StepResult extends Counts {
  name: string;
  /** passed | failed | skipped (nothing to run) | crashed (failed without a countable test). */
  outcome: "passed" | "failed" | "skipped" | "crashed";
  seconds: number;
  note?: string;
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
 * Runs a command with its output streamed to ours (or only kept, with `quiet`, for a run beside
 * another that streams); resolves with the exit code and the output. A bun test run's file times
 * go to `layerFiles`.
 */
function stream(argv: string[], env: Record<string, string | undefined>, quiet = false): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: paths.root, env, stdio: ["ignore", "pipe", "pipe"] });
    const clock = new FileClock();
    let output = "";
    const take = (chunk: Buffer, to: NodeJS.WriteStream) => {
      output += chunk;
      clock.feed(chunk.toString());
      if (!quiet) to.write(chunk);
    };
    child.stdout!.on("data", (chunk: Buffer) => take(chunk, process.stdout));
    child.stderr!.on("data", (chunk: Buffer) => take(chunk, process.stderr));
    child.on("error", (error) => {
      output += `\n${error.message}\n`;
      resolve({ code: 127, output });
    });
    child.on("close", (code, signal) => {
      clock.close();
      for (const [file, seconds] of clock.seconds) layerFiles.set(file, (layerFiles.get(file) ?? 0) + seconds);
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

  type Step = { name: string; run: () => Promise<Omit<StepResult, "name" | "seconds">> };
  /** Layers a step ran beside its own, reported after it. */
  const besideResults: StepResult[] = [];
  const steps: Step[] = [];
  const crashed = (note: string) => ({ outcome: "crashed" as const, passed: 0, failed: 1, skipped: 0, note });
  const nothing = (note: string) => ({ outcome: "skipped" as const, passed: 0, failed: 0, skipped: 0, note });

  if (only.has("typecheck")) {
    steps.push({
      name: "typecheck",
      run: async () => {
        const counts = { passed: 0, failed: 0, skipped: 0 };
        for (const check of typeChecks()) {
          console.log(`-- ${check.name}`);
          const result = await runTypeCheck(check);
          if (result.ok) counts.passed += 1;
          else counts.failed += result.errors;
          console.log(`-- ${check.name}: ${result.ok ? "no errors" : `${result.errors} error(s)`}`);
        }
        return { ...counts, outcome: counts.failed > 0 ? "failed" : "passed" };
      },
    });
  }

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

  const bunStep = (layer: Layer, extra: string[] = []): Step => ({
    name: layer,
    run: async () => {
      const dir = join(paths.root, "tests", layer);
      const files = findFiles(dir, ".test.ts");
      if (files.length === 0) return nothing(`no tests/${layer}/**/*.test.ts`);
      const { code, output } = await stream([process.execPath, "test", `./${relative(paths.root, dir)}`, ...extra], env);
      const counts = parseBunTest(output);
      if (code !== 0 && counts.failed === 0) return { ...counts, ...crashed(`bun test exited with ${code}`), passed: counts.passed };
      return { ...counts, outcome: counts.failed > 0 || code !== 0 ? "failed" : "passed" };
    },
  });

  if (only.has("unit")) steps.push(bunStep("unit"));
  const pgTap = async (tapEnv = env, quiet = false): Promise<Omit<StepResult, "name" | "seconds"> & { output: string }> => {
    const files = findFiles(join(paths.root, "supabase", "tests"), ".test.sql").map((f) => relative(paths.root, f));
    if (files.length === 0) return { ...nothing("no supabase/tests/**/*.test.sql"), output: "" };
    const { code, output } = await stream(["pg_prove", "--failures", ...files], tapEnv, quiet);
    const counts = parsePgProve(output);
    if (code !== 0 && counts.failed === 0) return { ...counts, ...crashed(`pg_prove exited with ${code}`), passed: counts.passed, output };
    return { ...counts, outcome: counts.failed > 0 || code !== 0 ? "failed" : "passed", output };
  };
  if (only.has("db")) steps.push({ name: "db", run: pgTap });
  if (only.has("integration")) {
    steps.push({
      name: "integration",
      run: async () => {
        const files = findFiles(join(paths.root, "tests", "integration"), ".test.ts").map((f) => `./${relative(paths.root, f)}`);
        if (files.length === 0) return nothing("no tests/integration/**/*.test.ts");
        const media = files.filter((f) => MEDIA_INTEGRATION_TESTS.includes(f));
        const { first, second } = splitIntegrationFiles(files.filter((f) => !MEDIA_INTEGRATION_TESTS.includes(f)));
        // The second stack's cluster is created and reset like the first one was.
        const secondEnv = await secondStackEnv();
        const prepared = await stream([process.execPath, "stack/db-reset.ts"], secondEnv, true);
        if (prepared.code !== 0) throw new Error(`the second stack's database could not be reset:\n${prepared.output}`);
        console.log(
          `-- ${first.length} files streamed here; ${second.length} on a second stack (${SECOND_STACK.localDir}) and ${media.length} media files (no database) run beside them, their output follows`,
        );
        // They start processes (the CLI, the edge host, FFmpeg) on two cores shared by all three:
        // bun's 5-s default per test is too tight for that; a test that names its own keeps it.
        const timeout = ["--timeout", "30000"];
        const [db, other, side] = await Promise.all([
          stream([process.execPath, "test", ...timeout, ...first], env),
          second.length ? stream([process.execPath, "test", ...timeout, ...second], secondEnv, true) : Promise.resolve({ code: 0, output: "" }),
          media.length ? stream([process.execPath, "test", ...timeout, ...media], env, true) : Promise.resolve({ code: 0, output: "" }),
        ]);
        if (second.length) {
          console.log(`\n-- the integration files of the second stack:`);
          process.stdout.write(other.output);
        }
        if (media.length) {
          console.log(`\n-- the media integration files, run beside the others:`);
          process.stdout.write(side.output);
        }
        await stream([process.execPath, "stack/db.ts", "stop"], secondEnv, true);
        const halves = [db, other, side].map(({ code, output }) => ({ code, ...parseBunTest(output) }));
        const counts = {
          passed: halves.reduce((n, h) => n + h.passed, 0),
          failed: halves.reduce((n, h) => n + h.failed + (h.code !== 0 && h.failed === 0 ? 1 : 0), 0),
          skipped: halves.reduce((n, h) => n + h.skipped, 0),
        };
        return { ...counts, outcome: counts.failed > 0 ? "failed" : "passed" };
      },
    });
  }
  if (only.has("supabase-extensions")) {
    // Its tests skip themselves on a server without the extensions, their hooks with them.
    steps.push({
      name: "supabase-extensions",
      run: async () => {
        const extensions = serverExtensions(pgBinDir());
        const missing = [!extensions.pgNet && "pg_net", !extensions.vault && "supabase_vault", extensions.pgmqVersion === null && "pgmq"].filter(Boolean);
        const { code, output } = await stream([process.execPath, "test", "./tests/supabase-extensions"], env);
        const counts = parseBunTest(output);
        if (code !== 0 && counts.failed === 0) return { ...counts, ...crashed(`bun test exited with ${code}`), passed: counts.passed };
        if (missing.length > 0 && counts.passed === 0 && counts.failed === 0) {
          return {
            ...counts,
            outcome: "skipped",
            note: `${pgBinDir()} has no ${
              missing.join(", ")
            }: set MDAME_PG_BINDIR to a Postgres with Supabase's extensions (docs/reference/supabase-wiring.md)`,
          };
        }
        return { ...counts, outcome: counts.failed > 0 || code !== 0 ? "failed" : "passed" };
      },
    });
  }
  // On the pgmq-compatible SQL, only when the run is on the default (1.5) layout: --pgmq-shape 1.4
  // already runs everything there. On a pgmq extension, the server's version decides.
  const pgmqLayer = only.has("pgmq-1.4") && (serverPgmq !== null || process.env.MDAME_PGMQ_SHAPE !== "1.4");
  /**
   * The pgmq-1.4 layer: every pgTAP file and the queue integration tests on pgmq 1.4.4's layout. On
   * the third stack (beside the e2e layer) when `beside`, its output printed at the end; else on the
   * first, reset to 1.4 and back.
   */
  const pgmq14 = async (beside: boolean): Promise<Omit<StepResult, "name" | "seconds">> => {
    const shape = process.env.MDAME_PGMQ_SHAPE;
    if (serverPgmq !== null && shape !== "1.4") {
      return nothing(
        `the server's pgmq extension is ${serverPgmq}, so pgmq 1.4's layout cannot be had here; run this layer with MDAME_PG_BINDIR on a Postgres whose pgmq is 1.4.x (docs/reference/supabase-wiring.md)`,
      );
    }
    const layerEnv = beside ? await extraStackEnv(THIRD_STACK, { MDAME_PGMQ_SHAPE: "1.4" }) : { ...env, MDAME_PGMQ_SHAPE: "1.4" };
    const outputs: string[] = [];
    try {
      if (beside) {
        // The third stack's cluster is created and reset like the first one was.
        const prepared = await stream([process.execPath, "stack/db-reset.ts"], layerEnv, true);
        if (prepared.code !== 0) throw new Error(`the third stack's database could not be reset:\n${prepared.output}`);
      } else {
        await reset({ pgmqShape: "1.4" });
      }
      const tap = await pgTap(layerEnv, beside);
      outputs.push(tap.output);
      const { code, output } = await stream([process.execPath, "test", "--timeout", "30000", ...PGMQ_INTEGRATION_TESTS], layerEnv, beside);
      outputs.push(output);
      const counts = parseBunTest(output);
      const passed = tap.passed + counts.passed;
      const failed = tap.failed + counts.failed + (code !== 0 && counts.failed === 0 ? 1 : 0);
      return { passed, failed, skipped: 0, outcome: failed > 0 ? "failed" : "passed" };
    } finally {
      if (beside) {
        console.log(`\n-- the pgmq-1.4 layer, run beside on a third stack (${THIRD_STACK.localDir}):`);
        process.stdout.write(outputs.join("\n"));
        await stream([process.execPath, "stack/db.ts", "stop"], layerEnv, true);
      } else {
        // Back to the run's layout for whatever follows.
        await reset({ pgmqShape: pgmqShapeFromEnv(shape) });
      }
    }
  };
  /** With the e2e layer, the pgmq-1.4 layer runs beside it on the third stack, and its row is added after. */
  const pgmqBesideE2e = pgmqLayer && only.has("e2e");
  if (pgmqLayer && !pgmqBesideE2e) steps.push({ name: "pgmq-1.4", run: () => pgmq14(false) });

  if (only.has("e2e")) {
    steps.push({
      name: "e2e",
      run: async () => {
        const files = findFiles(join(paths.root, "tests", "e2e"), ".test.ts").map((f) => `./${relative(paths.root, f)}`);
        if (files.length === 0) return nothing("no tests/e2e/**/*.test.ts");
        const second = files.filter((f) => E2E_SECOND_STACK_TESTS.includes(f));
        const first = files.filter((f) => !E2E_SECOND_STACK_TESTS.includes(f));
        const timeout = ["--timeout", "600000"];
        const secondEnv = second.length ? await secondStackEnv() : null;
        console.log(
          `-- ${first.length} files streamed here on the stack of .local/; ${second.length} on a second stack (${SECOND_STACK.localDir}, ports ${SECOND_STACK.dbPort}/${SECOND_STACK.edgePort}/${SECOND_STACK.emulatorPort}) beside them, their output follows`,
        );
        const pgmqStarted = performance.now();
        const beside = pgmqBesideE2e
          ? pgmq14(true).catch((error: unknown) => crashed(error instanceof Error ? error.message.split("\n")[0]! : String(error))).then((result) => {
            besideResults.push({ name: "pgmq-1.4", seconds: (performance.now() - pgmqStarted) / 1000, ...result });
          })
          : Promise.resolve();
        const [main, side] = await Promise.all([
          first.length ? stream([process.execPath, "test", ...timeout, ...first], env) : Promise.resolve({ code: 0, output: "" }),
          secondEnv ? stream([process.execPath, "test", ...timeout, ...second], secondEnv, true) : Promise.resolve({ code: 0, output: "" }),
        ]);
        await beside;
        if (secondEnv) {
          console.log(`\n-- the e2e files of the second stack:`);
          process.stdout.write(side.output);
          // Its cluster stays for a look afterwards (npm run clean removes it with .local/), stopped.
          await stream([process.execPath, "stack/db.ts", "stop"], secondEnv, true);
        }
        const halves = [main, side].map(({ code, output }) => ({ code, ...parseBunTest(output) }));
        const counts = {
          passed: halves.reduce((n, h) => n + h.passed, 0),
          failed: halves.reduce((n, h) => n + h.failed + (h.code !== 0 && h.failed === 0 ? 1 : 0), 0),
          skipped: halves.reduce((n, h) => n + h.skipped, 0),
        };
        return { ...counts, outcome: counts.failed > 0 ? "failed" : "passed" };
      },
    });
  }

  for (const [i, step] of steps.entries()) {
    heading(i + 1, steps.length, step.name);
    layerFiles.clear();
    const started = performance.now();
    let result: Omit<StepResult, "name" | "seconds">;
    try {
      result = await step.run();
    } catch (error) {
      console.error(error instanceof Error ? error.message : String(error));
      result = crashed(error instanceof Error ? error.message.split("\n")[0]! : String(error));
    }
    const seconds = (performance.now() - started) / 1000;
    results.push({ name: step.name, seconds, ...result });
    const counts = result.outcome === "skipped" && !result.skipped
      ? ""
      : ` (${result.passed} passed, ${result.failed} failed${result.skipped ? `, ${result.skipped} skipped` : ""})`;
    console.log(`-- ${step.name}: ${result.outcome}${counts}${result.note ? ` - ${result.note}` : ""} in ${seconds.toFixed(1)} s`);
    if (layerFiles.size > 1) console.log(`-- ${step.name}: its slowest files (wall time, hooks included):\n${slowestFiles(layerFiles).join("\n")}`);
    for (const r of besideResults.splice(0)) {
      results.push(r);
      console.log(
        `-- ${r.name} (run beside ${step.name}): ${r.outcome} (${r.passed} passed, ${r.failed} failed)${r.note ? ` - ${r.note}` : ""} in ${
          r.seconds.toFixed(1)
        } s`,
      );
    }
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
    console.log(`${r.name.padEnd(19)} ${r.outcome.padEnd(8)} ${counts.padEnd(36)} ${r.seconds.toFixed(1).padStart(6)} s`);
  }
  for (const r of results) if (r.outcome === "skipped" && r.note) console.log(`${r.name} skipped: ${r.note}`);
  const total = results.reduce((acc, r) => ({ passed: acc.passed + r.passed, failed: acc.failed + r.failed, skipped: acc.skipped + r.skipped }), {
    passed: 0,
    failed: 0,
    skipped: 0,
  });
  const anyBad = results.some((r) => r.outcome === "failed" || r.outcome === "crashed");
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
