/**
 * Publishing to Instagram Reels and Facebook Page Reels through their platform adapters, against
 * the real Postgres, the real stage runner and the Meta emulator; accounts are connected through
 * Facebook Login with the engine's own client (tests/integration/fixtures/meta-accounts.ts):
 * - a dimension on both publishes once to each: the rendered bytes, the caption from the script, the
 *   cover offset, share_to_feed, both ids recorded, both posts in the ledger with the limit read;
 *   the long-lived user token is exchanged for a fresh one and re-sealed;
 * - Instagram's publishing limit reached defers the publication (never fails it) until the moving
 *   window has room, while Facebook publishes; the drain then publishes it;
 * - a video past Facebook's 90 s is skipped with its reason before any call; Instagram publishes,
 *   the unit is published and the run's status says why;
 * - a revoked grant (code 190) marks both accounts needs_reconnect and defers them; a new connect
 *   clears it and the drain publishes;
 * - Meta refusing a Reel's finish for its own limit holds the Page; once the window has room, the
 *   same Reel is finished: one Reel started, one published.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { decryptCredentials, encryptCredentials } from "../../shared/crypto/credentials.ts";
import { drainDeferredPublications } from "../../shared/db/rpc/publications.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { addMetaAccounts, metaLogin } from "./fixtures/meta-accounts.ts";
import { mp4, sha256 } from "./fixtures/meta-client.ts";
import {
  publicationsOf,
  type PublishBench,
  runStages as runStagesWith,
  startPublishBench,
  stopPublishBench,
  unitAtPublish as unitAtPublishOf,
  unitOf,
} from "./fixtures/publish-stage.ts";

const admin = adminSql();
const VIDEO = mp4({ durationS: 30, padBytes: 300 * 1024, seed: "publish-meta" });
const LONG_VIDEO = mp4({ durationS: 120, padBytes: 200 * 1024, seed: "publish-meta-long" });

let emulator: PublishBench["emulator"];
let env: Record<string, string>;
let deps: PipelineDeps;
let videoPath: string;
let longVideoPath: string;
let bench: PublishBench;

beforeAll(async () => {
  bench = await startPublishBench("publish-meta", VIDEO, { MDAME_META_POLL_INTERVAL_MS: "200", MDAME_META_PART_BYTES: String(128 * 1024) });
  ({ emulator, env, deps, videoPath } = bench);
  longVideoPath = join(bench.workDir, "long.mp4");
  await writeFile(longVideoPath, LONG_VIDEO);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await emulator.reset();
  await emulatorCall("PUT", "/_emulator/meta/settings", { ig_processing_delay_ms: 300, fb_processing_delay_ms: 300 });
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

async function emulatorCall(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${emulator.url}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return await response.json().catch(() => null);
}

const posts = () => emulatorCall("GET", "/_emulator/meta/posts") as Promise<{ instagram: any[]; facebook: any[] }>;
const runStages = () => runStagesWith(deps);

/** Only the dimension's Meta accounts publish (the seed's other accounts paused). */
async function onlyMeta(dimension: string, user: string, only?: "instagram" | "facebook") {
  const accounts = await addMetaAccounts(admin, deps, env, dimension, user, only);
  await admin`update mdame.dimension_accounts set active = platform in ('instagram', 'facebook') where dimension_id = ${dimension}`;
  return accounts;
}

describe("publishing to Instagram and Facebook", () => {
  test("a dimension on both publishes once to each, with the rendered bytes, the caption and its ids", async () => {
    const accounts = await onlyMeta("tech-explained", "sky-facts");
    const storedBefore =
      (await admin<{ credentials_enc: string }[]>`select credentials_enc from mdame.dimension_accounts where id = ${accounts.instagram}`)[0]!;
    const { unitId } = await unitAtPublishOf(admin, deps, videoPath, "tech-explained", 30);
    await runStages();

    expect((await unitOf(admin, unitId)).stage).toBe("published");
    const { instagram, facebook } = await posts();
    expect(instagram).toHaveLength(1);
    expect(facebook).toHaveLength(1);
    expect(instagram[0].sha256).toBe(sha256(VIDEO));
    expect(facebook[0].sha256).toBe(sha256(VIDEO));
    expect(instagram[0]).toMatchObject({
      ig_user_id: accounts.igUserId,
      share_to_feed: true,
      thumb_offset: 1000,
      caption: "A title\n\nA description\n\n#shorts",
    });
    expect(facebook[0]).toMatchObject({ page_id: accounts.pageId, description: "A title\n\nA description\n\n#shorts", video_state: "PUBLISHED" });

    const pubs = await publicationsOf(admin, unitId);
    expect(pubs.get(accounts.instagram)).toMatchObject({ status: "published", external_id: instagram[0].media_id });
    expect(pubs.get(accounts.facebook)).toMatchObject({ status: "published", external_id: facebook[0].video_id });
    // Both posts in the ledger, each with the limit: Instagram's as read, Facebook's documented 30.
    const limits = await admin<{ platform: string; quota_total: number; quota_usage: number | null }[]>`
      select a.platform, l.quota_total, l.quota_usage from mdame.meta_publishing_limits l join mdame.dimension_accounts a on a.id = l.account_id order by a.platform`;
    expect([...limits]).toEqual([{ platform: "facebook", quota_total: 30, quota_usage: null }, { platform: "instagram", quota_total: 50, quota_usage: 0 }]);
    expect((await admin`select 1 from mdame.meta_posts`).length).toBe(2);
    // The long-lived token was exchanged for a fresh one, sealed over the old one, and still opens.
    const [after] = await admin<{ credentials_enc: string }[]>`select credentials_enc from mdame.dimension_accounts where id = ${accounts.instagram}`;
    expect(after!.credentials_enc).not.toBe(storedBefore.credentials_enc);
    const opened = await decryptCredentials(deps.credentialKeys, after!.credentials_enc, accounts.instagram);
    expect(opened.refresh_token).not.toBe(accounts.userToken);
  }, 60_000);

  test("Instagram's reached limit defers the publication until the window has room; Facebook publishes meanwhile", async () => {
    const accounts = await onlyMeta("tech-explained", "sky-facts");
    await emulatorCall("PUT", `/_emulator/meta/limits/${accounts.igUserId}`, { limit: 1 });
    const first = await unitAtPublishOf(admin, deps, videoPath, "tech-explained", 30);
    await runStages();
    expect((await unitOf(admin, first.unitId)).stage).toBe("published");

    const second = await unitAtPublishOf(admin, deps, videoPath, "tech-explained", 30);
    await runStages();
    const pubs = await publicationsOf(admin, second.unitId);
    expect(pubs.get(accounts.instagram)).toMatchObject({ status: "deferred", deferred_reason: "channel_cap" });
    const [{ reserved_at }] = await admin<{ reserved_at: Date }[]>`select reserved_at from mdame.meta_posts where publication_id = (
      select id from mdame.publications where unit_id = ${first.unitId} and account_id = ${accounts.instagram})`;
    // Until the first post ages out of the moving 24 hours.
    expect(pubs.get(accounts.instagram)!.not_before!.getTime()).toBe(reserved_at.getTime() + 24 * 3600_000);
    expect(pubs.get(accounts.facebook)).toMatchObject({ status: "published" });
    expect((await unitOf(admin, second.unitId)).stage).toBe("deferred");
    expect((await posts()).instagram).toHaveLength(1);

    // A day later (the engine's clock and Instagram's), the drain publishes it.
    await admin`select mdame.set_engine_clock(interval '24 hours 1 minute')`;
    await emulatorCall("POST", "/_emulator/clock", { advance_ms: 24 * 3600_000 + 60_000 });
    expect(await drainDeferredPublications(deps.sql)).toBe(1);
    await runStages();
    expect((await unitOf(admin, second.unitId)).stage).toBe("published");
    expect((await posts()).instagram).toHaveLength(2);
  }, 60_000);

  test("a video past Facebook's 90 seconds is skipped with its reason before any call; Instagram publishes", async () => {
    const accounts = await onlyMeta("tech-explained", "sky-facts");
    const { runId, unitId } = await unitAtPublishOf(admin, deps, longVideoPath, "tech-explained", 120);
    await runStages();

    expect((await unitOf(admin, unitId)).stage).toBe("published");
    const pubs = await admin<{ account_id: string; status: string; skip_reason: string | null }[]>`
      select account_id, status, skip_reason from mdame.publications where unit_id = ${unitId}`;
    expect(pubs.find((p) => p.account_id === accounts.facebook)).toMatchObject({
      status: "skipped",
      skip_reason: "the video lasts 120.0 s; Facebook Reels last 3 to 90 s",
    });
    expect(pubs.find((p) => p.account_id === accounts.instagram)).toMatchObject({ status: "published" });
    // Nothing was started on Facebook, and the Page's window was not charged.
    expect((await emulatorCall("GET", "/_emulator/meta/uploads")).reels).toEqual([]);
    expect((await admin`select 1 from mdame.meta_posts where account_id = ${accounts.facebook}`).length).toBe(0);
    const [status] = await admin<{ s: any }[]>`select mdame.get_run_status(${runId}::uuid) as s`;
    expect(status!.s.units[0].publications).toContainEqual(
      expect.objectContaining({ platform: "facebook", status: "skipped", skip_reason: expect.stringContaining("90 s") }),
    );
    expect(status!.s.run.status).toBe("completed");
  }, 60_000);

  test("a Page alone with a video past 90 seconds fails the unit, naming the reason", async () => {
    await onlyMeta("tech-explained", "sky-facts", "facebook");
    const { unitId } = await unitAtPublishOf(admin, deps, longVideoPath, "tech-explained", 120);
    await runStages();
    const unit = await unitOf(admin, unitId);
    expect(unit.stage).toBe("failed");
    expect(unit.error).toContain("takes this video: facebook");
    expect(unit.error).toContain("Facebook Reels last 3 to 90 s");
  }, 60_000);

  test("a revoked grant marks both accounts needs_reconnect and defers them; a new connect lets the drain publish", async () => {
    const accounts = await onlyMeta("tech-explained", "sky-facts");
    await emulatorCall("POST", "/_emulator/meta/revocations", { app_id: env.META_APP_ID, user: "sky-facts", reason: "password_changed" });
    const { unitId } = await unitAtPublishOf(admin, deps, videoPath, "tech-explained", 30);
    await runStages();

    expect((await unitOf(admin, unitId)).stage).toBe("deferred");
    const health = await admin<{ platform: string; health_state: string; health_reason: string }[]>`
      select platform, health_state, health_reason from mdame.dimension_accounts where id in (${accounts.instagram}, ${accounts.facebook}) order by platform`;
    expect(health.map((h) => [h.platform, h.health_state])).toEqual([["facebook", "needs_reconnect"], ["instagram", "needs_reconnect"]]);
    expect(health[0]!.health_reason).toContain("code 190");
    const pubs = await publicationsOf(admin, unitId);
    expect([...pubs.values()].map((p) => p.deferred_reason)).toEqual(["needs_reconnect", "needs_reconnect"]);

    // The user signs in again: new credentials clear the state, and the drain publishes what waited.
    const { userToken } = await metaLogin(env, "sky-facts");
    for (const id of [accounts.instagram, accounts.facebook]) {
      await admin`select mdame.store_account_credentials(${id}::uuid, ${await encryptCredentials(deps.credentialKeys, { refresh_token: userToken }, id)})`;
    }
    expect(await drainDeferredPublications(deps.sql)).toBe(1);
    await runStages();
    expect((await unitOf(admin, unitId)).stage).toBe("published");
    const { instagram, facebook } = await posts();
    expect([instagram.length, facebook.length]).toEqual([1, 1]);
  }, 60_000);

  test("Meta refusing a Reel's finish for its limit holds the Page; with room, the same Reel is finished", async () => {
    const accounts = await onlyMeta("tech-explained", "sky-facts", "facebook");
    await emulatorCall("PUT", `/_emulator/meta/limits/${accounts.pageId}`, { limit: 0 });
    const { unitId } = await unitAtPublishOf(admin, deps, videoPath, "tech-explained", 30);
    await runStages();

    const pub = (await publicationsOf(admin, unitId)).get(accounts.facebook)!;
    expect(pub).toMatchObject({ status: "deferred", deferred_reason: "channel_cap" });
    const [limit] = await admin<{ full_until: Date; now: Date }[]>`
      select full_until, mdame.engine_now() as now from mdame.meta_publishing_limits where account_id = ${accounts.facebook}`;
    // The engine made no other post in the window: Meta's count is read again in an hour.
    expect(limit!.full_until.getTime()).toBe(pub.not_before!.getTime());
    expect(limit!.full_until.getTime() - limit!.now.getTime()).toBeGreaterThan(59 * 60_000);

    await emulatorCall("PUT", `/_emulator/meta/limits/${accounts.pageId}`, { limit: null });
    await admin`select mdame.set_engine_clock(interval '61 minutes')`;
    expect(await drainDeferredPublications(deps.sql)).toBe(1);
    await runStages();
    expect((await unitOf(admin, unitId)).stage).toBe("published");
    expect((await emulatorCall("GET", "/_emulator/meta/uploads")).reels).toHaveLength(1);
    expect((await posts()).facebook).toHaveLength(1);
  }, 60_000);
});
