/**
 * Waking the stage runner from SQL on a server without pg_net and Vault (the local stack): an
 * enqueue queues `POST <functions url>/pipeline/tick` with the service key from Vault, through the
 * stand-ins the reset installs (supabase/pg-net-compat, supabase/vault-compat); the stack's net
 * sender (stack/net-sender.ts) sends it to the real edge host (Deno, stack/edge-host.ts), whose tick
 * drains the work. Nothing else ticks: the edge host neither listens nor polls. On a server with the
 * real pg_net and Vault this is skipped: pg_net's own worker sends there, and
 * tests/supabase-extensions/ tests it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";
import { createLogger } from "../../shared/logging/logger.ts";
import * as db from "../../stack/db.ts";
import { createNetSender, type NetSender, type RecordedResponse } from "../../stack/net-sender.ts";
import { pgBinDir, serverExtensions } from "../../stack/pg-server.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { type EdgeHostProcess, startEdgeHost } from "../fixtures/edge-host-process.ts";
import { startTestEmulator } from "./fixtures/emulator-harness.ts";

const sql = postgres(LOCAL_DB_URL, { max: 2, onnotice: () => {} });
const listener = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
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

const startRun = (key: string) =>
  sql`select run_id from mdame.start_run(${key}, 'dev', 'manual', current_date, 'tech-explained')`.then(([row]) => row.run_id as string);

afterAll(async () => {
  await listener.end({ timeout: 2 });
  await sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
}, 60_000);

describe.skipIf(supabaseServer)("the local stack's wake-ups (pg_net and Vault stand-ins, the net sender)", () => {
  let edgeHost: EdgeHostProcess;
  let storageDir: string;
  let emulator: Awaited<ReturnType<typeof startTestEmulator>>;
  let sender: NetSender;
  const env = localStackEnv();

  const setVaultSecret = async (name: string, value: string) => {
    await sql`delete from vault.secrets where name = ${name}`;
    await sql`select vault.create_secret(${value}, ${name}, 'set by pg-net-wake.test.ts')`;
  };

  beforeAll(async () => {
    await db.ensureRunning(() => {});
    await db.reset({ log: () => {} });
    emulator = await startTestEmulator();
    storageDir = await mkdtemp(join(tmpdir(), "mdame-pg-net-storage-"));
    edgeHost = await startEdgeHost({ ...env, ...emulator.serviceEnv(), STORAGE_LOCAL_DIR: storageDir, LOG_LEVEL: "warn" });
    await setVaultSecret("mdame_functions_url", edgeHost.functionsUrl);
    await setVaultSecret("mdame_service_role_key", env.SERVICE_ROLE_KEY);
    sender = createNetSender({ sql, listener, logger: createLogger("net", { write: () => {} }, "fatal") });
    await sender.start();
  }, 120_000);

  afterAll(async () => {
    await sender?.stop();
    await edgeHost?.stop();
    await emulator?.stop();
    if (storageDir) await rm(storageDir, { recursive: true, force: true });
  }, 60_000);

  /** The answer to the tick request a wake with this reason queued (the drain's own enqueues wake too). */
  const tickAnswer = (reason: string) =>
    waitFor<RecordedResponse>(
      `the ${reason} tick request to be sent`,
      () => sender.recorded.find((r) => r.url.endsWith("/pipeline/tick") && JSON.parse(r.request_body ?? "{}").reason === reason),
      120_000,
    );

  test("an enqueue wakes the stage runner over HTTP and its work drains", async () => {
    const runId = await startRun(`pg-net-wake-http-${Date.now()}`);
    const answer = await tickAnswer("ingest");
    expect(answer.method).toBe("POST");
    expect(answer.url).toBe(`${edgeHost.functionsUrl}/pipeline/tick`);
    expect(answer.error_msg).toBeNull();
    expect(answer.status_code).toBe(200);
    const result = JSON.parse(answer.content!) as { processed: number; failed: number; more: boolean };
    expect(result.processed).toBeGreaterThanOrEqual(1);
    // The ingest ran: the dimension moved on and its unit exists; no stage task is left visible.
    const [dimension] = await sql`select status from mdame.run_dimensions where run_id = ${runId} and dimension_id = 'tech-explained'`;
    expect(dimension.status).not.toBe("ingesting");
    const [units] = await sql`select count(*)::int as n from mdame.work_units where run_id = ${runId}`;
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
      // Slots left by earlier ticks whose answers are recorded are freed by this wake itself.
      await sql`select mdame.wake_stage_runner('wrong-key-probe')`;
      const answer = await tickAnswer("wrong-key-probe");
      expect(answer.status_code).toBe(401);
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
    // Every tick answered: no slot is taken, so the enqueue's wake reads the secrets.
    await sender.idle();
    try {
      const error = await sql`select mdame.enqueue_stage_task('script', ${unit.run_id}, ${unit.id})`.then(
        () => null,
        (e: { code?: string; message: string }) => e,
      );
      expect(error?.code).toBe("MDN01");
      expect(error?.message).toContain("mdame_functions_url");
      expect(await queued()).toBe(before);
    } finally {
      await setVaultSecret("mdame_functions_url", edgeHost.functionsUrl);
    }
  });
});
