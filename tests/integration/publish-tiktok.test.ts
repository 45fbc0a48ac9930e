/**
 * Publishing to TikTok through the platform adapter, against the real Postgres, the real stage runner
 * and the TikTok and YouTube emulators; accounts are connected with the real TikTok client
 * (shared/providers/tiktok: PKCE consent, code exchange) and their refresh tokens sealed as the
 * operator API does:
 * - a dimension with a YouTube and a TikTok account publishes to both, each recorded with its own
 *   platform and id; an unaudited TikTok app's post goes out SELF_ONLY and the publication says so;
 *   an audited one's goes out public with its public post id; the AI-generated label follows the
 *   dimension's disclosure setting;
 * - a full TikTok rate window defers the TikTok publication while YouTube publishes, and the drain
 *   publishes it once the window has room;
 * - a revoked TikTok grant marks that account needs_reconnect and defers it, never failing the unit;
 * - a TikTok outage at init fails the attempt after YouTube published; the retry posts to TikTok once;
 * - a refresh token TikTok rotates is re-sealed over the stored one, so the next publish still works.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { decryptCredentials } from "../../shared/crypto/credentials.ts";
import { drainDeferredPublications } from "../../shared/db/rpc/publications.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { addTikTokAccount as addTikTok } from "./fixtures/tiktok-account.ts";
import {
  addYouTubeAccount,
  publicationsOf,
  type PublishBench,
  runStages as runStagesWith,
  startPublishBench,
  stopPublishBench,
  unitAtPublish as unitAtPublishOf,
  unitOf,
  uploadedVideos,
} from "./fixtures/publish-stage.ts";

const admin = adminSql();

let emulator: PublishBench["emulator"];
let env: Record<string, string>;
let deps: PipelineDeps;
let videoPath: string;

let bench: PublishBench;

beforeAll(async () => {
  bench = await startPublishBench("publish-tiktok", randomBytes(400 * 1024));
  ({ emulator, env, deps, videoPath } = bench);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await emulator.reset();
  // TikTok finishes a post as soon as its bytes are in.
  await emulatorCall("PUT", "/_emulator/tiktok/settings", { processing_delay_ms: 0 });
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

async function emulatorCall(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${emulator.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return await response.json().catch(() => null);
}

/** A TikTok account of `dimension` for creator `user`, connected and sealed as the operator API does. */
const addTikTokAccount = (dimension: string, user: string) => addTikTok(admin, { env, deps }, dimension, user);

const addYouTube = (dimension: string, channel: string) =>
  addYouTubeAccount(admin, {
    dimension,
    handle: `@${channel}`,
    project: "tiktok-suite.apps.googleusercontent.com",
    refreshToken: `emulator-refresh-${channel}`,
    key: env.CREDENTIALS_KEY!,
  });
const unitAtPublish = (dimension: string) => unitAtPublishOf(admin, deps, videoPath, dimension);
const runStages = () => runStagesWith(deps);

interface TikTokPost {
  publish_id: string;
  post_id: string;
  user: string;
  privacy_level: string;
  title: string;
  is_aigc: boolean;
  size_bytes: number;
}
const tiktokPosts = async () => await emulatorCall("GET", "/_emulator/tiktok/posts") as TikTokPost[];

async function publicationRow(accountId: string) {
  const [row] = await admin<
    { platform: string; status: string; external_id: string | null; privacy_status: string | null; deferred_reason: string | null; not_before: Date | null }[]
  >`
    select platform, status, external_id, privacy_status, deferred_reason, not_before from mdame.publications where account_id = ${accountId}`;
  return row!;
}

describe("publishing to TikTok", () => {
  test("a dimension on YouTube and TikTok publishes to both; an unaudited app's post goes out SELF_ONLY and the publication says so", async () => {
    const youtube = await addYouTube("tech-explained", "both-platforms");
    const tiktok = await addTikTokAccount("tech-explained", "sky-facts");
    const { unitId } = await unitAtPublish("tech-explained");

    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect(await unitOf(admin, unitId)).toMatchObject({ stage: "published" });
    const pubs = await publicationsOf(admin, unitId);
    expect(pubs.get(youtube)?.status).toBe("published");
    expect((await uploadedVideos(emulator.url)).map((v) => v.channel)).toEqual(["both-platforms"]);

    const posts = await tiktokPosts();
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ user: "sky-facts", privacy_level: "SELF_ONLY", is_aigc: true, size_bytes: 400 * 1024 });
    expect(posts[0]!.title).toContain("A title");
    expect(posts[0]!.title).toContain("#shorts");
    // No public id for a private post: the publish_id names it; the privacy TikTok gave is not the one asked for.
    expect(await publicationRow(tiktok)).toMatchObject({
      platform: "tiktok",
      status: "published",
      external_id: posts[0]!.publish_id,
      privacy_status: "SELF_ONLY",
    });
    const locked = await admin<{ account_id: string; privacy_status: string }[]>`select account_id, privacy_status from mdame.list_locked_publications()`;
    expect([...locked]).toEqual([{ account_id: tiktok, privacy_status: "SELF_ONLY" }]);
  }, 120_000);

  test("an audited app's post goes out public with its public post id, labelled by the dimension's disclosure setting", async () => {
    await emulatorCall("PUT", `/_emulator/tiktok/clients/${env.TIKTOK_CLIENT_KEY}`, { audited: true });
    await admin`update mdame.dimensions set publishing = publishing || '{"contains_synthetic_media": false}'::jsonb where id = 'sains-singkat'`;
    const tiktok = await addTikTokAccount("sains-singkat", "ocean-notes");
    await admin`update mdame.dimension_accounts set active = false where dimension_id = 'sains-singkat' and platform = 'youtube'`;
    const { unitId } = await unitAtPublish("sains-singkat");

    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect(await unitOf(admin, unitId)).toMatchObject({ stage: "published" });
    const [post] = await tiktokPosts();
    expect(post).toMatchObject({ user: "ocean-notes", privacy_level: "PUBLIC_TO_EVERYONE", is_aigc: false });
    expect(await publicationRow(tiktok)).toMatchObject({ status: "published", external_id: post!.post_id, privacy_status: "PUBLIC_TO_EVERYONE" });
    // Given what was asked: nothing to report.
    expect([...await admin`select 1 from mdame.list_locked_publications()`]).toEqual([]);
  }, 120_000);

  test("a full TikTok rate window defers the TikTok publication while YouTube publishes; the drain publishes it once the window has room", async () => {
    const youtube = await addYouTube("tech-explained", "window-channel");
    const tiktok = await addTikTokAccount("tech-explained", "window-creator");
    // Six inits in the last minute, as another publisher of this account just made.
    await admin`insert into mdame.tiktok_calls (account_id, call_kind, created_at) select ${tiktok}, 'video.init', now() - interval '10 seconds' from generate_series(1, 6)`;
    const { unitId } = await unitAtPublish("tech-explained");

    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect((await publicationsOf(admin, unitId)).get(youtube)?.status).toBe("published");
    const waiting = await publicationRow(tiktok);
    expect(waiting).toMatchObject({ status: "deferred", deferred_reason: "rate_limited" });
    expect(waiting.not_before!.getTime()).toBeGreaterThan(Date.now());
    expect(waiting.not_before!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(await unitOf(admin, unitId)).toMatchObject({ stage: "deferred" });
    expect(await tiktokPosts()).toHaveLength(0);
    expect(await drainDeferredPublications(deps.sql)).toBe(0);

    // A minute later the window has room.
    await admin`update mdame.tiktok_calls set created_at = created_at - interval '1 minute' where account_id = ${tiktok}`;
    await admin`update mdame.publications set not_before = now() - interval '1 second' where account_id = ${tiktok}`;
    expect(await drainDeferredPublications(deps.sql)).toBe(1);
    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect(await publicationRow(tiktok)).toMatchObject({ status: "published" });
    expect(await unitOf(admin, unitId)).toMatchObject({ stage: "published" });
    expect(await tiktokPosts()).toHaveLength(1);
    expect(await uploadedVideos(emulator.url)).toHaveLength(1);
  }, 120_000);

  test("a revoked TikTok grant marks the account needs_reconnect and defers it; YouTube publishes; the unit does not fail", async () => {
    const youtube = await addYouTube("tech-explained", "grant-channel");
    const tiktok = await addTikTokAccount("tech-explained", "gone-creator");
    await emulatorCall("POST", "/_emulator/tiktok/revocations", { client_key: env.TIKTOK_CLIENT_KEY, user: "gone-creator" });
    const { unitId } = await unitAtPublish("tech-explained");

    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect((await publicationsOf(admin, unitId)).get(youtube)?.status).toBe("published");
    expect(await publicationRow(tiktok)).toMatchObject({ status: "deferred", deferred_reason: "needs_reconnect", not_before: null });
    const [account] = await admin<
      { health_state: string; health_reason: string }[]
    >`select health_state, health_reason from mdame.dimension_accounts where id = ${tiktok}`;
    expect(account!.health_state).toBe("needs_reconnect");
    expect(account!.health_reason).toContain("invalid_grant");
    const [event] = await admin<{ detail: { fix: string } }[]>`select detail from mdame.events where kind = 'account_needs_reconnect'`;
    expect(event!.detail.fix).toBe("mdame account connect tiktok --dimension tech-explained --channel @gone-creator");
    expect(await unitOf(admin, unitId)).toMatchObject({ stage: "deferred" });
    expect(await tiktokPosts()).toHaveLength(0);
  }, 120_000);

  test("a TikTok outage at init fails the attempt after YouTube published; the retry posts to TikTok once and YouTube not again", async () => {
    const youtube = await addYouTube("tech-explained", "outage-channel");
    const tiktok = await addTikTokAccount("tech-explained", "outage-creator");
    await emulatorCall("POST", "/_emulator/faults", { service: "tiktok", kind: "http_503", count: 1 });
    const { unitId } = await unitAtPublish("tech-explained");

    expect(await runStages()).toMatchObject({ processed: 1, failed: 1 });
    expect((await publicationsOf(admin, unitId)).get(youtube)?.status).toBe("published");
    expect((await publicationRow(tiktok)).status).not.toBe("published");
    expect(await unitOf(admin, unitId)).toMatchObject({ stage: "publish" });

    // The retry, its backoff skipped.
    await admin`select pgmq.set_vt('stage_tasks', msg_id, 0) from pgmq.q_stage_tasks where message->>'unit_id' = ${unitId}`;
    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect(await publicationRow(tiktok)).toMatchObject({ status: "published" });
    expect(await unitOf(admin, unitId)).toMatchObject({ stage: "published" });
    expect(await tiktokPosts()).toHaveLength(1);
    expect(await uploadedVideos(emulator.url)).toHaveLength(1);
  }, 120_000);

  test("a refresh token TikTok rotates is re-sealed over the stored one, and the next publish uses the new one", async () => {
    await emulatorCall("PUT", "/_emulator/tiktok/settings", { rotate_refresh_tokens: true });
    await admin`update mdame.dimension_accounts set active = false where dimension_id = 'sains-singkat'`;
    const tiktok = await addTikTokAccount("sains-singkat", "rotating-creator");
    const stored = async () => {
      const [row] = await admin<{ credentials_enc: string }[]>`select credentials_enc from mdame.dimension_accounts where id = ${tiktok}`;
      return (await decryptCredentials(deps.credentialKeys, row!.credentials_enc, tiktok)).refresh_token;
    };
    const before = await stored();

    const first = await unitAtPublish("sains-singkat");
    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect(await unitOf(admin, first.unitId)).toMatchObject({ stage: "published" });
    const after = await stored();
    expect(after).not.toBe(before);
    // The old token is refused now: had the engine kept it, the next publish would need a reconnect.
    const refused = await fetch(`${env.TIKTOK_API_BASE_URL}/v2/oauth/token/`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_key: env.TIKTOK_CLIENT_KEY!,
        client_secret: env.TIKTOK_CLIENT_SECRET!,
        grant_type: "refresh_token",
        refresh_token: before,
      }),
    });
    expect(((await refused.json()) as { error?: string }).error).toBe("invalid_grant");

    const second = await unitAtPublish("sains-singkat");
    expect(await runStages()).toMatchObject({ processed: 1, failed: 0 });
    expect(await unitOf(admin, second.unitId)).toMatchObject({ stage: "published" });
    const [account] = await admin<{ health_state: string }[]>`select health_state from mdame.dimension_accounts where id = ${tiktok}`;
    expect(account!.health_state).toBe("ok");
    expect(await tiktokPosts()).toHaveLength(2);
    expect(await stored()).not.toBe(after);
  }, 120_000);
});
