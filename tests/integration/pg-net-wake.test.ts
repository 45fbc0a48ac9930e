/**
 * Waking the stage runner from SQL, both ways the engine does it:
 * - plain Postgres (the local stack): an enqueue notifies `mdame_wake`;
 * - a Supabase-shaped database (pg_net and Vault shims, supabase/tests/shims): an enqueue queues
 *   `POST <functions url>/pipeline/tick` with the service key from Vault; the pg_net performer sends
 *   it to the real edge host (Deno, stack/edge-host.ts), whose tick drains the work.
 * On a server with the real pg_net and Vault both are skipped: the database there is Supabase's
 * own, and tests/supabase-extensions/ tests it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { pgBinDir, serverExtensions } from "../../stack/pg-server.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { freePort, startTestEmulator } from "./fixtures/emulator-harness.ts";
import { type PerformedRequest, startPerformer } from "./fixtures/pg-net-performer.ts";

const sql = postgres(LOCAL_DB_URL, { max: 2, onnotice: () => {} });
const realExtensions = serverExtensions(pgBinDir());
const supabaseServer = realExtensions.pgNet && realExtensions.vault;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Listens on mdame_wake; `heard` collects every reason notified while it listens. */
async function listenForWakes() {
  const listener = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
  const heard: string[] = [];
  await listener.listen("mdame_wake", (reason) => heard.push(reason));
  return { heard, end: () => listener.end({ timeout: 2 }) };
}

const startRun = (key: string) =>
  sql`select run_id from mdame.start_run(${key}, 'dev', 'manual', current_date, 'tech-explained')`.then(([row]) => row.run_id as string);

afterAll(async () => {
  await sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

describe.skipIf(supabaseServer)("plain Postgres (no pg_net, no Vault)", () => {
  beforeAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
  }, 60_000);

  test("an enqueue on an idle queue notifies mdame_wake with the stage", async () => {
    const wakes = await listenForWakes();
    try {
      await startRun(`pg-net-wake-notify-${Date.now()}`);
      await waitFor("the ingest wake-up", () => (wakes.heard.includes("ingest") ? true : undefined), 10_000);
    } finally {
      await wakes.end();
    }
    expect(wakes.heard).toEqual(["ingest"]);
  });
});

describe.skipIf(supabaseServer)("Supabase-shaped database (pg_net and Vault shims)", () => {
  let edgeHost: ChildProcess;
  let edgeOutput = "";
  let functionsUrl: string;
  let storageDir: string;
  let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
  let performer: ReturnType<typeof startPerformer>;
  const env = localStackEnv();

  const setVaultSecret = async (name: string, value: string) => {
    await sql`delete from vault.secrets where name = ${name}`;
    await sql`select vault.create_secret(${value}, ${name}, 'set by pg-net-wake.test.ts')`;
  };

  beforeAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
    await db.applySqlFile(join(paths.root, "supabase", "tests", "shims", "pg_net.sql"));
    await db.applySqlFile(join(paths.root, "supabase", "tests", "shims", "vault.sql"));

    emulator = await startTestEmulator();
    storageDir = await mkdtemp(join(tmpdir(), "mdame-pg-net-storage-"));
    const port = await freePort();
    functionsUrl = `http://127.0.0.1:${port}/functions/v1`;
    edgeHost = spawn(join(paths.root, "node_modules", ".bin", "deno"), ["run", "-A", "stack/edge-host.ts"], {
      cwd: paths.root,
      env: {
        ...process.env, ...env, ...emulator.serviceEnv(),
        MDAME_EDGE_PORT: String(port), FUNCTIONS_URL: functionsUrl, STORAGE_LOCAL_DIR: storageDir, LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    edgeHost.stdout!.on("data", (chunk) => (edgeOutput += chunk));
    edgeHost.stderr!.on("data", (chunk) => (edgeOutput += chunk));
    await waitFor("the edge host", async () => {
      if (edgeHost.exitCode !== null) throw new Error(`edge host exited ${edgeHost.exitCode}:\n${edgeOutput}`);
      const ok = await fetch(`${functionsUrl}/pipeline/health`).then((r) => r.ok, () => false);
      return ok ? true : undefined;
    }, 60_000);
    // Its start-up tick (on LISTEN) finds an empty queue; the next poll is ten seconds away.
    await new Promise((resolve) => setTimeout(resolve, 500));

    await setVaultSecret("mdame_functions_url", functionsUrl);
    await setVaultSecret("mdame_service_role_key", env.SERVICE_ROLE_KEY);
    performer = startPerformer(sql);
  }, 120_000);

  afterAll(async () => {
    await performer?.stop();
    if (edgeHost && edgeHost.exitCode === null) {
      const exited = new Promise((resolve) => edgeHost.once("exit", resolve));
      edgeHost.kill("SIGTERM");
      const timer = setTimeout(() => edgeHost.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await emulator?.stop();
    if (storageDir) await rm(storageDir, { recursive: true, force: true });
  }, 60_000);

  /** The answer to the tick request a wake with this reason queued (the drain's own enqueues wake too). */
  const tickAnswer = (reason: string) =>
    waitFor<PerformedRequest>(`the ${reason} tick request to be performed`, () =>
      performer.performed.find((p) => p.url.endsWith("/pipeline/tick") && JSON.parse(p.requestBody ?? "{}").reason === reason), 120_000);

  test("an enqueue wakes the stage runner over HTTP, not pg_notify, and its work drains", async () => {
    const wakes = await listenForWakes();
    let runId: string;
    try {
      runId = await startRun(`pg-net-wake-http-${Date.now()}`);
      const answer = await tickAnswer("ingest");
      expect(answer.method).toBe("POST");
      expect(answer.url).toBe(`${functionsUrl}/pipeline/tick`);
      expect(answer.error).toBeNull();
      expect(answer.status).toBe(200);
      const result = JSON.parse(answer.body!) as { processed: number; failed: number; more: boolean };
      expect(result.processed).toBeGreaterThanOrEqual(1);
      expect(wakes.heard).toEqual([]);
    } finally {
      await wakes.end();
    }

    // The ingest ran: the dimension moved on and its unit exists; no stage task is left visible.
    const [dimension] = await sql`select status from mdame.run_dimensions where run_id = ${runId!} and dimension_id = 'tech-explained'`;
    expect(dimension.status).not.toBe("ingesting");
    const [units] = await sql`select count(*)::int as n from mdame.work_units where run_id = ${runId!}`;
    expect(units.n).toBeGreaterThanOrEqual(1);
    const [visible] = await sql`select count(*)::int as n from pgmq.q_stage_tasks where vt <= now()`;
    expect(visible.n).toBe(0);
    // pg_net's record of the call, as a deployer would inspect it.
    const [response] = await sql`select status_code from net._http_response order by id desc limit 1`;
    expect(response.status_code).toBe(200);
  }, 150_000);

  test("a wrong service key in Vault is refused by the tick (401)", async () => {
    await setVaultSecret("mdame_service_role_key", "not-the-service-key");
    try {
      await sql`select mdame.wake_stage_runner('wrong-key-probe')`;
      const answer = await tickAnswer("wrong-key-probe");
      expect(answer.status).toBe(401);
    } finally {
      await setVaultSecret("mdame_service_role_key", env.SERVICE_ROLE_KEY);
    }
  }, 30_000);

  test("with a Vault secret missing, an enqueue fails with MDN01 naming it and leaves nothing behind", async () => {
    const [unit] = await sql`select run_id, id from mdame.work_units order by created_at limit 1`;
    expect(unit).toBeDefined();
    const queued = async () => (await sql`select count(*)::int as n from pgmq.q_stage_tasks`)[0].n as number;
    const before = await queued();
    await sql`delete from vault.secrets where name = 'mdame_functions_url'`;
    try {
      const error = await sql`select mdame.enqueue_stage_task('script', ${unit.run_id}, ${unit.id})`.then(
        () => null,
        (e: { code?: string; message: string }) => e,
      );
      expect(error?.code).toBe("MDN01");
      expect(error?.message).toContain("mdame_functions_url");
      expect(await queued()).toBe(before);
    } finally {
      await setVaultSecret("mdame_functions_url", functionsUrl);
    }
  });
});
