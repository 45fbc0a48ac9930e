/**
 * YouTube and Google refusing a publish, against the real Postgres, the real stage runner and the
 * YouTube and Google OAuth emulators (the same engine path as publish-deferral.test.ts):
 * - YouTube's 400 uploadLimitExceeded (the channel's real cap, reached by uploads made elsewhere)
 *   defers the publication for the cap, lowers the account's cap, releases the refused call, and
 *   the drain publishes it exactly once after the window has passed;
 * - a Data API 401 right after a fresh access token (the emulator's youtube `unauthorized` fault)
 *   marks the account needs_reconnect and defers it while the dimension's other account publishes;
 *   a new connect lets the drain publish it once;
 * - a credential key ring: an engine holding the old key as a previous key publishes an account
 *   sealed with it; an engine whose ring lost that key releases the reserved call and defers that
 *   account as needs_reconnect with a reason naming the missing kid (no key material) while the
 *   unit's other account publishes; a rotation with the key put back clears it and the drain
 *   publishes it.
 * No unit fails for a refusal, and no video is uploaded twice.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { decryptCredentials, encryptCredentials, generateCredentialsKey, sealedKeyId } from "../../shared/crypto/credentials.ts";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { resealAccountCredentials, storeAccountCredentials } from "../../shared/db/rpc/accounts.ts";
import { drainDeferredPublications } from "../../shared/db/rpc/publications.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import {
  addYouTubeAccount,
  publicationsOf,
  type PublishBench,
  quietEngine,
  runStages as runStagesWith,
  runStatusOf,
  startPublishBench,
  stopPublishBench,
  unitAtPublish as unitAtPublishOf,
  unitOf,
  uploadedVideos as uploadedVideosOn,
} from "./fixtures/publish-stage.ts";
import { accessToken, errorOf, startUpload } from "./fixtures/youtube-emulator.ts";

const admin = adminSql();
const DAY_MS = 24 * 60 * 60 * 1000;

let emulator: PublishBench["emulator"];
let env: Record<string, string>;
let deps: PipelineDeps;
/** Engines built by a test with another key ring; closed after each test's use. */
const extraDeps: PipelineDeps[] = [];
let videoPath: string;

let bench: PublishBench;

beforeAll(async () => {
  bench = await startPublishBench("publish-refusals", randomBytes(300 * 1024));
  ({ emulator, env, deps, videoPath } = bench);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
}, 60_000);

afterAll(() => stopPublishBench(bench, extraDeps), 60_000);

const engine = quietEngine;

/** An engine like the test's own, but holding the credential key ring `keys`. */
function engineWithKeys(keys: { CREDENTIALS_KEY: string; CREDENTIALS_KEYS_PREVIOUS?: string }): PipelineDeps {
  const { CREDENTIALS_KEYS_PREVIOUS: _dropped, ...rest } = env;
  const built = engine({ ...rest, ...keys });
  extraDeps.push(built);
  return built;
}

/**
 * A channel of `dimension` connected through `project`, its credentials sealed with `key`. The
 * emulator's channel is the refresh token's part after `emulator-refresh-`: `channel`.
 */
function addAccount(dimension: string, channel: string, project: string, key = env.CREDENTIALS_KEY!): Promise<string> {
  return addYouTubeAccount(admin, { dimension, handle: `@${channel}`, project, refreshToken: `emulator-refresh-${channel}`, key });
}

const unitAtPublish = (dimension: string) => unitAtPublishOf(admin, deps, videoPath, dimension);
const runStages = (engineDeps: PipelineDeps = deps) => runStagesWith(engineDeps);
const publications = (unitId: string) => publicationsOf(admin, unitId);
const unit = (unitId: string) => unitOf(admin, unitId);
const runStatus = (runId: string) => runStatusOf(admin, runId);
const uploadedVideos = () => uploadedVideosOn(emulator.url);

type AccountRow = { upload_cap_24h: number; upload_cap_full_until: Date | null; health_state: string; health_reason: string | null; channel_handle: string };

async function account(accountId: string): Promise<AccountRow> {
  const [row] = await admin<AccountRow[]>`
    select upload_cap_24h, upload_cap_full_until, health_state, health_reason, channel_handle from mdame.dimension_accounts where id = ${accountId}`;
  return row!;
}

async function ledgerOf(accountId: string): Promise<{ entry: string; status: string }[]> {
  return [
    ...await admin<{ entry: string; status: string }[]>`
    select entry, status from mdame.quota_ledger where account_id = ${accountId} order by created_at, entry`,
  ];
}

async function emulatorAdmin(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${emulator.url}${path}`, { method, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<Record<string, unknown>>;
}

describe("publish refusals", () => {
  test("400 uploadLimitExceeded defers the publication for the channel's cap; after the window the drain publishes it once", async () => {
    const project = "cap-project.apps.googleusercontent.com";
    const accountId = await addAccount("tech-explained", "cap-channel", project);
    // The channel's real cap on YouTube is 2, and 2 uploads made in YouTube Studio fill it: the
    // engine's ledger counts none, so it reserves, and YouTube itself refuses the upload.
    await emulatorAdmin("PUT", "/_emulator/youtube/channels/cap-channel", { uploads_per_24h: 2 });
    await emulatorAdmin("POST", "/_emulator/youtube/channels/cap-channel/outside-uploads", { count: 2 });
    const { runId, unitId } = await unitAtPublish("tech-explained");

    const before = Date.now();
    const result = await runStages();
    expect(result.failed).toBe(0);
    const pub = (await publications(unitId)).get(accountId)!;
    expect(pub).toMatchObject({ status: "deferred", deferred_reason: "channel_cap", external_id: null });
    // The ledger counts no upload in the window, so the channel waits 24 hours.
    expect(pub.not_before!.getTime()).toBeGreaterThan(before + DAY_MS - 60_000);
    expect(pub.not_before!.getTime()).toBeLessThanOrEqual(Date.now() + DAY_MS);
    const refused = await account(accountId);
    expect(refused.upload_cap_24h).toBe(1);
    expect(refused.upload_cap_full_until).toEqual(pub.not_before);
    expect(refused.health_state).toBe("ok");
    expect(await ledgerOf(accountId)).toEqual([{ entry: "call", status: "released" }]);
    const [event] = await admin<{ detail: { reason: string; account_id: string } }[]>`select detail from mdame.events where kind = 'youtube_refusal'`;
    expect(event!.detail).toMatchObject({ reason: "uploadLimitExceeded", account_id: accountId });
    expect(await unit(unitId)).toMatchObject({ stage: "deferred", error: null });
    expect(await runStatus(runId)).toBe("completed");
    const [deadLetters] = await admin<{ n: number }[]>`select count(*)::int as n from mdame.dead_letters`;
    expect(deadLetters!.n).toBe(0);
    expect(await uploadedVideos()).toHaveLength(0);

    // Inside the window nothing is sent again.
    expect(await drainDeferredPublications(deps.sql)).toBe(0);

    // A day later: the outside uploads age out on YouTube's clock, and the account's refusal
    // window and the deferral are over on the database's (moved back by a day instead of waiting).
    await emulatorAdmin("POST", "/_emulator/clock", { advance_ms: DAY_MS + 60_000 });
    await admin`update mdame.dimension_accounts set upload_cap_full_until = upload_cap_full_until - interval '1 day 1 minute' where id = ${accountId}`;
    await admin`update mdame.publications set not_before = not_before - interval '1 day 1 minute' where account_id = ${accountId} and status = 'deferred'`;
    expect(await drainDeferredPublications(deps.sql)).toBe(1);
    expect((await runStages()).failed).toBe(0);
    const published = (await publications(unitId)).get(accountId)!;
    expect(published.status).toBe("published");
    expect(await unit(unitId)).toMatchObject({ stage: "published" });
    const videos = await uploadedVideos();
    expect(videos.map((v) => [v.id, v.channel])).toEqual([[published.external_id!, "cap-channel"]]);
    expect(await ledgerOf(accountId)).toEqual([{ entry: "call", status: "released" }, { entry: "call", status: "settled" }]);
    // Nothing is left to send: a further drain and stage pass upload nothing more.
    expect(await drainDeferredPublications(deps.sql)).toBe(0);
    await runStages();
    expect(await uploadedVideos()).toHaveLength(1);
  }, 120_000);

  test("the emulator's youtube `unauthorized` fault answers 401 authError to one upload start with a valid token, charging nothing", async () => {
    const clientId = "fault-project.apps.googleusercontent.com";
    await emulator.armFault({ service: "youtube", kind: "unauthorized", count: 1 });
    const token = await accessToken(emulator.url, clientId, "fault-channel");
    const refused = await startUpload(emulator.url, token);
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).errors[0]!.reason).toBe("authError");
    // The same token works on the next call: the fault wore out.
    expect((await startUpload(emulator.url, token)).status).toBe(200);
    const usage = await (await fetch(`${emulator.url}/_emulator/youtube/usage`)).json() as { projects: { client_id: string; insert: { used: number } }[] };
    expect(usage.projects.find((p) => p.client_id === clientId)?.insert.used).toBe(1);
  }, 30_000);

  test(
    "a Data API 401 after a fresh token marks the account needs_reconnect and defers it; the other account publishes; a new connect lets the drain publish it once",
    async () => {
      const project = "one-project.apps.googleusercontent.com";
      const a = await addAccount("tech-explained", "first-channel", project);
      const b = await addAccount("tech-explained", "second-channel", project);
      // The stage tries accounts in id order, and the armed 401 hits the first upload start.
      const [dropped, healthy] = [a, b].sort();
      const droppedChannel = dropped === a ? "first-channel" : "second-channel";
      const healthyChannel = dropped === a ? "second-channel" : "first-channel";
      await emulator.armFault({ service: "youtube", kind: "unauthorized", count: 1 });
      const { runId, unitId } = await unitAtPublish("tech-explained");

      expect((await runStages()).failed).toBe(0);
      let pubs = await publications(unitId);
      expect(pubs.get(healthy)?.status).toBe("published");
      expect(pubs.get(dropped)).toMatchObject({ status: "deferred", deferred_reason: "needs_reconnect", not_before: null });
      const marked = await account(dropped);
      expect(marked.health_state).toBe("needs_reconnect");
      expect(marked.health_reason).toContain("401");
      expect((await account(healthy)).health_state).toBe("ok");
      const events = await admin<{ detail: { account_id: string; reason: string; fix: string } }[]>`
      select detail from mdame.events where kind = 'account_needs_reconnect'`;
      expect(events).toHaveLength(1);
      expect(events[0]!.detail.account_id).toBe(dropped);
      expect(events[0]!.detail.reason).toContain("401");
      expect(events[0]!.detail.fix).toBe(`mdame account connect youtube --dimension tech-explained --channel @${droppedChannel}`);
      // The refused call never opened a session: its cost goes back.
      expect(await ledgerOf(dropped)).toEqual([{ entry: "call", status: "released" }]);
      expect(await unit(unitId)).toMatchObject({ stage: "deferred" });
      expect(await runStatus(runId)).toBe("completed");
      expect((await uploadedVideos()).map((v) => v.channel)).toEqual([healthyChannel]);
      // Until the channel is connected again, the drain leaves it alone.
      expect(await drainDeferredPublications(deps.sql)).toBe(0);

      // The operator connects the channel again (the RPC `mdame account connect` ends with): new
      // credentials clear the state.
      await storeAccountCredentials(
        deps.sql,
        dropped,
        await encryptCredentials(
          credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY! }),
          { refresh_token: `emulator-refresh-${droppedChannel}` },
          dropped,
        ),
      );
      expect((await account(dropped)).health_state).toBe("ok");
      expect(await drainDeferredPublications(deps.sql)).toBe(1);
      expect((await runStages()).failed).toBe(0);
      pubs = await publications(unitId);
      expect(pubs.get(dropped)?.status).toBe("published");
      expect(await unit(unitId)).toMatchObject({ stage: "published" });
      const videos = await uploadedVideos();
      expect(videos.map((v) => v.channel).sort()).toEqual([droppedChannel, healthyChannel].sort());
      expect(videos.map((v) => v.id).sort()).toEqual([pubs.get(dropped)!.external_id!, pubs.get(healthy)!.external_id!].sort());
    },
    120_000,
  );

  test("an engine holding the old key as a previous key publishes an account sealed with it", async () => {
    const oldKey = generateCredentialsKey();
    const newKey = generateCredentialsKey();
    const accountId = await addAccount("tech-explained", "old-key-channel", "ring-project.apps.googleusercontent.com", oldKey);
    const [{ credentials_enc: sealed }] = await admin<
      { credentials_enc: string }[]
    >`select credentials_enc from mdame.dimension_accounts where id = ${accountId}`;
    const ring = engineWithKeys({ CREDENTIALS_KEY: newKey, CREDENTIALS_KEYS_PREVIOUS: oldKey });
    expect(sealedKeyId(sealed)).toBe(ring.credentialKeys.previous[0]!.kid);
    expect(sealedKeyId(sealed)).not.toBe(ring.credentialKeys.current.kid);
    const { unitId } = await unitAtPublish("tech-explained");

    expect((await runStages(ring)).failed).toBe(0);
    const pub = (await publications(unitId)).get(accountId)!;
    expect(pub.status).toBe("published");
    expect(await unit(unitId)).toMatchObject({ stage: "published" });
    expect((await uploadedVideos()).map((v) => [v.id, v.channel])).toEqual([[pub.external_id!, "old-key-channel"]]);
    expect(await ledgerOf(accountId)).toEqual([{ entry: "call", status: "settled" }]);
  }, 120_000);

  test(
    "an engine whose ring lost the old key defers that account as needs_reconnect, naming the kid, while the other account publishes; a rotation with the key put back lets the drain publish it",
    async () => {
      const oldKey = generateCredentialsKey();
      const newKey = generateCredentialsKey();
      const lost = await addAccount("sains-singkat", "lost-key-channel", "lost-project.apps.googleusercontent.com", oldKey);
      const healthy = await addAccount("sains-singkat", "new-key-channel", "lost-project.apps.googleusercontent.com", newKey);
      const oldKid = credentialKeyRing({ CREDENTIALS_KEY: oldKey }).current.kid;
      const newOnly = engineWithKeys({ CREDENTIALS_KEY: newKey });
      expect(newOnly.credentialKeys.previous).toEqual([]);
      const newKid = newOnly.credentialKeys.current.kid;
      const { runId, unitId } = await unitAtPublish("sains-singkat");

      /** Checks the reason: names both kids and the fixes, and carries no key material. */
      const expectClearReason = (text: string | null) => {
        expect(text).toStartWith("credentials key missing: ");
        expect(text).toContain(`credentials of account ${lost} are sealed with key ${oldKid}, which is not in the key ring (${newKid})`);
        expect(text).toContain("CREDENTIALS_KEYS_PREVIOUS");
        expect(text).toContain("mdame account connect");
        for (const key of [oldKey, newKey]) {
          expect(text).not.toContain(key);
          expect(text).not.toContain(Buffer.from(key, "base64").toString("hex"));
        }
      };

      // One pass: no failure, no retry; the account the ring cannot open waits, the other publishes.
      expect(await runStages(newOnly)).toMatchObject({ processed: 1, failed: 0 });
      let pubs = await publications(unitId);
      expect(pubs.get(healthy)?.status).toBe("published");
      expect(pubs.get(lost)).toMatchObject({ status: "deferred", deferred_reason: "needs_reconnect", external_id: null });
      expect(await unit(unitId)).toMatchObject({ stage: "deferred" });
      expect(await ledgerOf(lost)).toEqual([{ entry: "call", status: "released" }]);
      const marked = await account(lost);
      expect(marked.health_state).toBe("needs_reconnect");
      expectClearReason(marked.health_reason);
      const [event] = await admin<{ detail: { reason: string; fix: string } }[]>`
      select detail from mdame.events where kind = 'account_needs_reconnect' and detail->>'account_id' = ${lost}`;
      expectClearReason(event!.detail.reason);
      const retries = await admin`select 1 from mdame.events where unit_id = ${unitId} and kind in ('retry_scheduled', 'dead_lettered')`;
      expect(retries.length).toBe(0);
      expect(await runStatus(runId)).not.toBe("failed");
      expect((await uploadedVideos()).map((v) => v.channel)).toEqual(["new-key-channel"]);
      expect(await drainDeferredPublications(deps.sql)).toBe(0);

      // The operator puts the old key back as a previous key and rotates: the value is re-sealed with
      // the current key (what `mdame credentials rotate` does per account), which clears the state.
      const [{ credentials_enc: sealed }] = await admin<{ credentials_enc: string }[]>`select credentials_enc from mdame.dimension_accounts where id = ${lost}`;
      const withOld = credentialKeyRing({ CREDENTIALS_KEY: newKey, CREDENTIALS_KEYS_PREVIOUS: oldKey });
      const resealed = await encryptCredentials(newOnly.credentialKeys, await decryptCredentials(withOld, sealed, lost), lost);
      expect((await resealAccountCredentials(deps.sql, { id: lost, expected: sealed, resealed })).swapped).toBe(true);
      expect((await account(lost)).health_state).toBe("ok");
      expect(await drainDeferredPublications(deps.sql)).toBe(1);
      expect(await runStages(newOnly)).toMatchObject({ processed: 1, failed: 0 });
      pubs = await publications(unitId);
      expect(pubs.get(lost)?.status).toBe("published");
      expect(await unit(unitId)).toMatchObject({ stage: "published" });
      expect((await uploadedVideos()).map((v) => v.channel).sort()).toEqual(["lost-key-channel", "new-key-channel"]);
    },
    120_000,
  );
});
