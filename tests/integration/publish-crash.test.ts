/**
 * kill -9 of the publish stage at chosen points of an upload, on YouTube, TikTok, Instagram and
 * Facebook: the stage
 * runs as its own process (tests/integration/fixtures/publish-stage-process.ts) with a failpoint
 * armed, is killed there, and is run again (the task made visible at once, as its lease would
 * expire) until the unit is published. Each scenario must end with its publication published
 * exactly once: one upload on the platform's emulator, holding the rendered bytes, and the
 * platform's id recorded. The video is a 16 MB MP4 (Meta's processing reads its boxes), so
 * YouTube's resumable upload (1 MiB chunks here), TikTok's chunked upload (5 MiB chunks, the least
 * TikTok takes) and Meta's rupload parts (1 MiB here) all stop between parts. On Instagram and
 * Facebook the points past the upload are Meta's own steps: the container polled to FINISHED, then
 * media_publish; the Reel finished, then published. A second container or Reel is never made, and a
 * media_publish whose answer was lost is found, not repeated.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import { addTikTokAccount as addTikTok } from "./fixtures/tiktok-account.ts";
import { addMetaAccounts } from "./fixtures/meta-accounts.ts";
import { mp4 } from "./fixtures/meta-client.ts";
import { addYouTubeAccount, type PublishBench, publishStageProcess, startPublishBench, stopPublishBench, unitAtPublish } from "./fixtures/publish-stage.ts";

const admin = adminSql();
const VIDEO_BYTES = 16 * 1024 * 1024;
const MAX_PROCESSES = 8;

let emulator: PublishBench["emulator"];
let env: Record<string, string>;
let deps: PipelineDeps;
let workDir: string;
let videoPath: string;
let videoSha: string;
let bench: PublishBench;

beforeAll(async () => {
  const bytes = mp4({ durationS: 30, padBytes: VIDEO_BYTES, seed: "publish-crash" });
  videoSha = createHash("sha256").update(bytes).digest("hex");
  bench = await startPublishBench("publish-crash", bytes, {
    MDAME_UPLOAD_CHUNK_BYTES: String(1024 * 1024),
    MDAME_TIKTOK_CHUNK_BYTES: String(5 * 1024 * 1024),
    MDAME_TIKTOK_POLL_INTERVAL_MS: "500",
    MDAME_META_PART_BYTES: String(1024 * 1024),
    MDAME_META_POLL_INTERVAL_MS: "300",
  });
  ({ emulator, env, deps, workDir, videoPath } = bench);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await emulator.reset();
  await fetch(`${emulator.url}/_emulator/tiktok/settings`, { method: "PUT", body: JSON.stringify({ processing_delay_ms: 1500 }) });
  await fetch(`${emulator.url}/_emulator/meta/settings`, {
    method: "PUT",
    body: JSON.stringify({ ig_processing_delay_ms: 1500, fb_processing_delay_ms: 1500 }),
  });
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

/** A TikTok account for creator `user`, granted publishing alone. */
const addTikTokAccount = (dimension: string, user: string) => addTikTok(admin, { env, deps }, dimension, user, ["video.publish"]);

type Platform = "youtube" | "tiktok" | "instagram" | "facebook";

const emulatorJson = async <T>(path: string) => await (await fetch(`${emulator.url}${path}`)).json() as T;

/** What the platform's emulator holds: each completed upload's id and sha256. */
async function platformUploads(platform: Platform): Promise<{ id: string; sha256: string }[]> {
  if (platform === "youtube") return await emulatorJson<{ id: string; sha256: string }[]>("/_emulator/youtube/videos");
  if (platform === "instagram" || platform === "facebook") {
    const posts = await emulatorJson<{ instagram: { media_id: string; sha256: string }[]; facebook: { video_id: string; sha256: string }[] }>(
      "/_emulator/meta/posts",
    );
    return platform === "instagram"
      ? posts.instagram.map((p) => ({ id: p.media_id, sha256: p.sha256 }))
      : posts.facebook.map((p) => ({ id: p.video_id, sha256: p.sha256 }));
  }
  const posts = await (await fetch(`${emulator.url}/_emulator/tiktok/posts`)).json() as { publish_id: string; post_id: string; sha256: string }[];
  return posts.map((p) => ({ id: p.publish_id, sha256: p.sha256 }));
}

/** The sessions the platform opened: TikTok's posts initialised, Instagram's containers, Facebook's Reels started; null for YouTube. */
async function sessionsOpened(platform: Platform): Promise<number | null> {
  if (platform === "tiktok") return (await emulatorJson<unknown[]>("/_emulator/tiktok/publishes")).length;
  if (platform === "youtube") return null;
  const uploads = await emulatorJson<{ containers: unknown[]; reels: unknown[] }>("/_emulator/meta/uploads");
  return platform === "instagram" ? uploads.containers.length : uploads.reels.length;
}

async function addAccount(platform: Platform): Promise<string> {
  if (platform === "instagram" || platform === "facebook") {
    return (await addMetaAccounts(admin, deps, env, "tech-explained", "crash-creator", platform))[platform];
  }
  return platform === "youtube"
    ? await addYouTubeAccount(admin, {
      dimension: "tech-explained",
      handle: "@crash-channel",
      project: "crash.apps.googleusercontent.com",
      refreshToken: "emulator-refresh-crash-channel",
      key: env.CREDENTIALS_KEY!,
    })
    : await addTikTokAccount("tech-explained", "crash-creator");
}

/**
 * A unit of one dimension whose only active account is on `platform`, published by stage
 * processes with `failpoint` armed, until it is published. Returns the processes' outcomes.
 */
async function crashAndConverge(platform: Platform, failpoint: string) {
  const account = await addAccount(platform);
  await admin`update mdame.dimension_accounts set active = (id = ${account}) where dimension_id = 'tech-explained'`;
  const { unitId } = await unitAtPublish(admin, deps, videoPath, "tech-explained", 30);
  const failpointDir = await mkdtemp(join(workDir, "failpoints-"));
  const runs: { killed: boolean; code: number | null }[] = [];
  for (let n = 0; n < MAX_PROCESSES; n++) {
    const run = await publishStageProcess(env, failpoint, failpointDir);
    runs.push({ killed: run.killed, code: run.code });
    if (!run.killed && run.code !== 0) throw new Error(`the stage process failed (${run.code}):\n${run.output}`);
    const [unit] = await admin<{ stage: string }[]>`select stage from mdame.work_units where id = ${unitId}`;
    if (unit!.stage === "published") break;
    // What the killed attempt's lease expiry (or a failed attempt's backoff) would do, at once.
    await admin`select pgmq.set_vt('stage_tasks', msg_id, 0) from pgmq.q_stage_tasks where message->>'unit_id' = ${unitId}`;
  }
  const [pub] = await admin<{ status: string; external_id: string | null }[]>`select status, external_id from mdame.publications where account_id = ${account}`;
  const [unit] = await admin<{ stage: string }[]>`select stage from mdame.work_units where id = ${unitId}`;
  const started = await sessionsOpened(platform);
  return {
    runs,
    fired: existsSync(join(failpointDir, `${failpoint.replace(/@\d+$/, "")}.hit`)),
    pub: pub!,
    stage: unit!.stage,
    uploads: await platformUploads(platform),
    started,
  };
}

const SCENARIOS: { platform: Platform; failpoint: string; what: string }[] = [
  { platform: "youtube", failpoint: "publish.after-session-stored", what: "the session stored, no byte sent" },
  { platform: "youtube", failpoint: "publish.mid-upload@3", what: "3 MiB sent" },
  { platform: "youtube", failpoint: "publish.mid-upload@12", what: "12 MiB sent" },
  { platform: "youtube", failpoint: "publish.after-upload-before-record", what: "uploaded, not recorded" },
  { platform: "tiktok", failpoint: "publish.after-session-stored", what: "the post initialised, no chunk sent" },
  { platform: "tiktok", failpoint: "publish.mid-upload@1", what: "the first chunk accepted" },
  { platform: "tiktok", failpoint: "publish.mid-upload@2", what: "two chunks accepted" },
  { platform: "tiktok", failpoint: "publish.tiktok-polling", what: "every chunk in, the post processing" },
  { platform: "tiktok", failpoint: "publish.after-upload-before-record", what: "posted, not recorded" },
  { platform: "instagram", failpoint: "publish.after-session-stored", what: "the container created, no byte sent" },
  { platform: "instagram", failpoint: "publish.mid-upload@3", what: "3 MiB sent" },
  { platform: "instagram", failpoint: "publish.meta-uploaded", what: "every byte in, before the status is polled" },
  { platform: "instagram", failpoint: "publish.instagram-finished", what: "FINISHED, before media_publish" },
  { platform: "instagram", failpoint: "publish.after-upload-before-record", what: "published, the media id not recorded" },
  { platform: "facebook", failpoint: "publish.after-session-stored", what: "the Reel started, no byte sent" },
  { platform: "facebook", failpoint: "publish.mid-upload@5", what: "5 MiB sent" },
  { platform: "facebook", failpoint: "publish.meta-uploaded", what: "every byte in, before the finish" },
  { platform: "facebook", failpoint: "publish.facebook-finished", what: "finished, before it is published" },
  { platform: "facebook", failpoint: "publish.after-upload-before-record", what: "published, not recorded" },
];

describe("kill -9 of the publish stage converges to one publication on each platform", () => {
  for (const scenario of SCENARIOS) {
    test(`${scenario.platform}: killed at ${scenario.failpoint} (${scenario.what})`, async () => {
      const result = await crashAndConverge(scenario.platform, scenario.failpoint);
      expect(result.fired).toBe(true);
      expect(result.runs[0]!.killed).toBe(true);
      expect(result.stage).toBe("published");
      expect(result.pub.status).toBe("published");
      // Exactly one upload on the platform, the rendered bytes, and its id recorded.
      expect(result.uploads).toHaveLength(1);
      expect(result.uploads[0]!.sha256).toBe(videoSha);
      // (TikTok: the unaudited app's SELF_ONLY post is named by its publish_id.)
      expect(result.pub.external_id).toBe(result.uploads[0]!.id);
      // TikTok, Instagram, Facebook: the stored session was resumed, never a second post, container or Reel opened.
      if (scenario.platform !== "youtube") expect(result.started).toBe(1);
    }, 180_000);
  }
});
