/**
 * Rotating CREDENTIALS_KEY online, through the real pipeline app and Postgres: the rotate route in
 * batches with its progress and dry run, the compare-and-swap against a connect that lands between
 * the read and the swap, `mdame credentials rotate` as its own process (its progress and summary,
 * killed between batches and run again), the key census, and what removing the old key does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createPipelineApp } from "../../functions/pipeline/app.ts";
import { createPipelineDeps, type PipelineDeps } from "../../functions/pipeline/deps.ts";
import { CredentialKeysCensus, CredentialsRotationBatch } from "../../shared/contracts/credentials.ts";
import { type CredentialKeyRing, credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { CredentialsKeyMissingError, decryptCredentials, encryptCredentials, generateCredentialsKey, sealedKeyId } from "../../shared/crypto/credentials.ts";
import * as db from "../../stack/db.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";
import { adminSql } from "../fixtures/admin-sql.ts";

const admin = adminSql();
const oldKey = generateCredentialsKey();
const newKey = generateCredentialsKey();
const lostKey = generateCredentialsKey();
const oldRing = credentialKeyRing({ CREDENTIALS_KEY: oldKey });
const rotatedRing = credentialKeyRing({ CREDENTIALS_KEY: newKey, CREDENTIALS_KEYS_PREVIOUS: oldKey });
const newOnlyRing = credentialKeyRing({ CREDENTIALS_KEY: newKey });
const lostKid = credentialKeyRing({ CREDENTIALS_KEY: lostKey }).current.kid;

let storageDir: string;
let deps: PipelineDeps;
let app: ReturnType<typeof createPipelineApp>;
let server: ReturnType<typeof Bun.serve>;
let functionsUrl: string;
/** Delay before each rotate request reaches the app (the kill test widens the gap between batches). */
let rotateDelayMs = 0;

function pipelineEnv(ring: { CREDENTIALS_KEY: string; CREDENTIALS_KEYS_PREVIOUS?: string }): Record<string, string> {
  const env: Record<string, string> = {
    ...localStackEnv(),
    FUNCTIONS_URL: "http://edge.test",
    STORAGE_BACKEND: "local",
    STORAGE_LOCAL_DIR: storageDir,
    LOG_LEVEL: "fatal",
    ...ring,
  };
  if (ring.CREDENTIALS_KEYS_PREVIOUS === undefined) delete env.CREDENTIALS_KEYS_PREVIOUS;
  return env;
}

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  storageDir = mkdtempSync(join(tmpdir(), "mdame-rotation-"));
  deps = createPipelineDeps(pipelineEnv({ CREDENTIALS_KEY: newKey, CREDENTIALS_KEYS_PREVIOUS: oldKey }));
  app = createPipelineApp(deps);
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/functions/v1/")) return new Response("not found", { status: 404 });
      if (url.pathname.endsWith("/credentials/rotate") && rotateDelayMs > 0) await Bun.sleep(rotateDelayMs);
      url.pathname = url.pathname.slice("/functions/v1".length);
      return app.fetch(new Request(url.href, request));
    },
  });
  functionsUrl = `http://127.0.0.1:${server.port}/functions/v1`;
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await deps?.sql.end({ timeout: 2 });
  await db.reset({ log: () => {} });
  rmSync(storageDir, { recursive: true, force: true });
}, 60_000);

/** A value in the first format, `v1.<iv>.<ciphertext>`, as deployments before the key ring sealed it. */
async function sealV1(keyB64: string, refreshToken: string, accountId: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await crypto.subtle.importKey("raw", Buffer.from(keyB64, "base64"), "AES-GCM", false, ["encrypt"]);
  const body = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(accountId) },
    key,
    new TextEncoder().encode(JSON.stringify({ refresh_token: refreshToken })),
  );
  return `v1.${Buffer.from(iv).toString("base64")}.${Buffer.from(body).toString("base64")}`;
}

interface Seeded {
  id: string;
  token: string;
  sealedWith: "v1-old" | "old" | "new" | "lost";
}
let seeded: Seeded[] = [];

/**
 * Eight accounts as a deployment before the rotation holds them: three in the v1 format and three
 * sealed with the old key, one already on the new key (connected after the deploy), and one sealed
 * with a key nobody kept.
 */
beforeEach(async () => {
  await admin`delete from mdame.dimension_accounts`;
  const kinds: Seeded["sealedWith"][] = ["v1-old", "old", "v1-old", "old", "new", "v1-old", "old", "lost"];
  seeded = [];
  for (const [i, kind] of kinds.entries()) {
    const dimension = i % 2 === 0 ? "tech-explained" : "sains-singkat";
    const [row] =
      await admin`insert into mdame.dimension_accounts (dimension_id, platform, channel_handle) values (${dimension}, 'youtube', ${`@rotation-${i}`}) returning id`;
    const id = row!.id as string;
    const token = `refresh-token-${i}-${crypto.randomUUID()}`;
    const sealed = kind === "v1-old"
      ? await sealV1(oldKey, token, id)
      : await encryptCredentials(kind === "old" ? oldRing : kind === "new" ? newOnlyRing : credentialKeyRing({ CREDENTIALS_KEY: lostKey }), {
        refresh_token: token,
      }, id);
    await admin`update mdame.dimension_accounts set credentials_enc = ${sealed}, connected_at = now() where id = ${id}`;
    seeded.push({ id, token, sealedWith: kind });
  }
});

const stored = async () =>
  new Map((await admin`select id, credentials_enc from mdame.dimension_accounts`).map((r) => [r.id as string, r.credentials_enc as string]));

/** Every account but the lost one opens with `ring` to the token it was connected with. */
async function expectNothingLost(ring: CredentialKeyRing) {
  const values = await stored();
  for (const account of seeded.filter((a) => a.sealedWith !== "lost")) {
    expect(await decryptCredentials(ring, values.get(account.id)!, account.id)).toEqual({ refresh_token: account.token });
  }
}

async function rotate(body: Record<string, unknown>, bearer = `Bearer ${deps.env.SERVICE_ROLE_KEY}`) {
  const response = await app.request("http://edge.test/pipeline/credentials/rotate", {
    method: "POST",
    headers: { authorization: bearer, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() as unknown };
}

async function census(appUnder = app, key = deps.env.SERVICE_ROLE_KEY) {
  const response = await appUnder.request("http://edge.test/pipeline/credentials/keys", { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return CredentialKeysCensus.parse(await response.json());
}

/** `bun cli/mdame.ts credentials rotate ...` against this test's server. */
function spawnRotate(args: string[]) {
  return Bun.spawn([process.execPath, join(paths.root, "cli", "mdame.ts"), "credentials", "rotate", ...args], {
    cwd: paths.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FUNCTIONS_URL: functionsUrl, SERVICE_ROLE_KEY: deps.env.SERVICE_ROLE_KEY },
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function runRotate(args: string[]) {
  const child = spawnRotate(args);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

describe("POST /pipeline/credentials/rotate", () => {
  test("a dry run reports what would change and writes nothing", async () => {
    const before = await stored();
    const { status, json } = await rotate({ limit: 100, dry_run: true });
    expect(status).toBe(200);
    const batch = CredentialsRotationBatch.parse(json);
    expect(batch).toMatchObject({ dry_run: true, total: 8, done: 8, next: null, ring: { current: rotatedRing.current.kid, previous: [oldRing.current.kid] } });
    const outcome = (id: string) => batch.batch.find((o) => o.account_id === id)!;
    for (const account of seeded) {
      const expected = { "v1-old": "would_reseal", old: "would_reseal", new: "current", lost: "failed" }[account.sealedWith];
      expect(outcome(account.id).outcome).toBe(expected as never);
    }
    const lost = outcome(seeded.find((a) => a.sealedWith === "lost")!.id);
    expect(lost.from_kid).toBe(lostKid);
    expect(lost.reason).toContain(`sealed with key ${lostKid}, which is not in the key ring`);
    expect(lost.reason).toContain("CREDENTIALS_KEYS_PREVIOUS");
    expect(await stored()).toEqual(before);
  });

  test("batches follow the account ids with their progress until the last; then every account opens with the new key alone", async () => {
    const connectedAt = async () =>
      (await admin`select id, connected_at from mdame.dimension_accounts order by id`).map((r) => [r.id, r.connected_at.toISOString()]);
    const connectedBefore = await connectedAt();
    const dones: number[] = [];
    let after: string | null = null;
    const outcomes: string[] = [];
    for (let requests = 0; requests < 10; requests++) {
      const { status, json } = await rotate({ limit: 3, after });
      expect(status).toBe(200);
      const batch = CredentialsRotationBatch.parse(json);
      expect(batch.batch.length).toBeLessThanOrEqual(3);
      dones.push(batch.done);
      outcomes.push(...batch.batch.map((o) => o.outcome));
      if (batch.next === null) break;
      after = batch.next;
    }
    expect(dones).toEqual([3, 6, 8]);
    expect(outcomes.sort()).toEqual(["current", "failed", ...Array(6).fill("resealed")].sort());
    await expectNothingLost(newOnlyRing);
    const values = await stored();
    for (const account of seeded.filter((a) => a.sealedWith !== "lost")) expect(sealedKeyId(values.get(account.id)!)).toBe(rotatedRing.current.kid);
    // connected_at stays: a re-seal is not a reconnect.
    expect(await connectedAt()).toEqual(connectedBefore);

    // Run again: nothing left to do, the lost one still named.
    const again = CredentialsRotationBatch.parse((await rotate({ limit: 100 })).json);
    expect(again.batch.filter((o) => o.outcome === "resealed")).toEqual([]);
    expect(again.batch.filter((o) => o.outcome === "failed").map((o) => o.from_kid)).toEqual([lostKid]);
  });

  test("a connect that stores new credentials between the read and the swap is never overwritten", async () => {
    const first = [...seeded].sort((a, b) => (a.id < b.id ? -1 : 1))[0]!;
    // The first account in the batches' order, sealed with the old key whatever the seeding gave it.
    await admin`update mdame.dimension_accounts set credentials_enc = ${await encryptCredentials(
      oldRing,
      { refresh_token: first.token },
      first.id,
    )} where id = ${first.id}`;
    const connectToken = "refresh-token-from-a-connect";
    const connectSealed = await encryptCredentials(rotatedRing, { refresh_token: connectToken }, first.id);
    let pending: Promise<{ status: number; json: unknown }> | undefined;
    await admin.begin(async (tx) => {
      // The connect holds the row; the rotation reads the old value, re-seals it and waits on the swap.
      await tx`select id from mdame.dimension_accounts where id = ${first.id} for update`;
      pending = rotate({ limit: 1 });
      for (let i = 0; i < 200; i++) {
        const [waiting] =
          await admin`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%reseal_account_credentials%'`;
        if (waiting!.n > 0) break;
        await Bun.sleep(25);
      }
      await tx`select mdame.store_account_credentials(${first.id}::uuid, ${connectSealed}::text)`;
    });
    const batch = CredentialsRotationBatch.parse((await pending!).json);
    expect(batch.batch).toEqual([expect.objectContaining({ account_id: first.id, outcome: "changed" })]);
    const values = await stored();
    expect(values.get(first.id)).toBe(connectSealed);
    expect(await decryptCredentials(newOnlyRing, values.get(first.id)!, first.id)).toEqual({ refresh_token: connectToken });
  });

  test("refuses callers without the service-role key and bodies it cannot act on, with 4xx", async () => {
    expect((await rotate({}, "Bearer not-the-key-0123456789")).status).toBe(401);
    for (const body of [{ limit: 0 }, { limit: 101 }, { after: "not-a-uuid" }, { dry_run: "yes" }, { batch: 3 }]) {
      const { status, json } = await rotate(body);
      expect(status).toBe(400);
      expect((json as { error: string }).error).toBe("invalid request");
    }
    const response = await app.request("http://edge.test/pipeline/credentials/keys");
    expect(response.status).toBe(401);
  });
});

describe("mdame credentials rotate", () => {
  test("re-seals every account in batches, printing progress and a summary that names each failure; exits 1 for the failure", async () => {
    const run = await runRotate(["--batch", "3"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(1);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`re-sealing the credentials of 8 account(s) with key ${rotatedRing.current.kid} (previous keys: ${oldRing.current.kid})`);
    const progress = lines.filter((l) => l.startsWith("re-sealed "));
    expect(progress.length).toBe(3);
    expect(progress.at(-1)).toBe("re-sealed 6/8 (checked 8/8: 1 already current, 1 failed)");
    expect(lines).toContain("done: 6 re-sealed, 1 already current, 0 changed by a connect meanwhile, 1 failed");
    const lost = seeded.find((a) => a.sealedWith === "lost")!;
    expect(lines.find((l) => l.startsWith("  failed: "))).toStartWith(
      `  failed: account ${lost.id} (@rotation-7, dimension sains-singkat): credentials of account ${lost.id} are sealed with key ${lostKid}`,
    );
    expect(lines).toContain(`accounts sealed with the current key ${rotatedRing.current.kid}: 7/8`);
    expect(lines).toContain(`  1 sealed with missing key ${lostKid}`);
    expect(lines).toContain(`previous keys no account needs any more: ${oldRing.current.kid} (they may leave CREDENTIALS_KEYS_PREVIOUS)`);
    await expectNothingLost(newOnlyRing);
  }, 60_000);

  test("--dry-run changes nothing and says so", async () => {
    const before = await stored();
    const run = await runRotate(["--dry-run", "--batch", "100"]);
    expect(run.stdout).toContain("dry run: 6 would be re-sealed, 1 already current, 1 failed; nothing was changed");
    expect(await stored()).toEqual(before);
  }, 60_000);

  test("killed between batches, it leaves every account readable; run again, it finishes", async () => {
    rotateDelayMs = 300;
    try {
      const child = spawnRotate(["--batch", "1"]);
      const reader = child.stdout.getReader();
      let out = "";
      // Three accounts checked: at least one of them needed re-sealing (two of the eight do not).
      while (!/checked 3\/8/.test(out)) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      child.kill("SIGKILL");
      await child.exited;
      expect(out).toMatch(/^re-sealed [0-3]\/8 \(checked 3\/8: /m);
    } finally {
      rotateDelayMs = 0;
    }
    // A request already in flight when the CLI died may still finish: wait for the server to settle.
    await Bun.sleep(500);
    const midway = [...(await stored()).values()].filter((v) => sealedKeyId(v) === rotatedRing.current.kid).length;
    // The one account already on the new key, plus what the batches before the kill re-sealed (at
    // least one of the first three, at most those and the batch in flight).
    expect(midway).toBeGreaterThan(1);
    expect(midway).toBeLessThan(7);
    await expectNothingLost(rotatedRing);

    const rerun = await runRotate(["--batch", "2"]);
    expect(rerun.stdout).toContain(`accounts sealed with the current key ${rotatedRing.current.kid}: 7/8`);
    expect(rerun.stdout).toMatch(/^done: \d re-sealed, \d already current, 0 changed by a connect meanwhile, 1 failed$/m);
    await expectNothingLost(newOnlyRing);
  }, 60_000);
});

describe("after the rotation", () => {
  test("with the old key removed, the census names what still needs it and it fails clearly", async () => {
    // Not rotated: the old key's accounts need it.
    const oldGone = createPipelineDeps(pipelineEnv({ CREDENTIALS_KEY: newKey }));
    try {
      const report = await census(createPipelineApp(oldGone), oldGone.env.SERVICE_ROLE_KEY);
      expect(report.ring).toEqual({ current: newOnlyRing.current.kid, previous: [] });
      const byStanding = Object.fromEntries(report.by_key.map((g) => [`${g.standing}:${g.kid}`, g.accounts]));
      expect(byStanding).toEqual({ "v1:null": 3, [`missing:${oldRing.current.kid}`]: 3, [`current:${newOnlyRing.current.kid}`]: 1, [`missing:${lostKid}`]: 1 });
      const account = seeded.find((a) => a.sealedWith === "old")!;
      const opening = decryptCredentials(oldGone.credentialKeys, (await stored()).get(account.id)!, account.id);
      await expect(opening).rejects.toBeInstanceOf(CredentialsKeyMissingError);
      await expect(opening).rejects.toThrow(`are sealed with key ${oldRing.current.kid}, which is not in the key ring (${newOnlyRing.current.kid})`);
    } finally {
      await oldGone.sql.end({ timeout: 2 });
    }

    // Rotated first: only the lost account is left, and the old key is reported unused while still listed.
    await runRotate([]);
    const report = await census();
    expect(report.unused_previous).toEqual([oldRing.current.kid]);
    expect(report.by_key.filter((g) => g.standing !== "current")).toEqual([{ kid: lostKid, standing: "missing", accounts: 1 }]);
  }, 60_000);
});
