/**
 * Publishing by YouTube's rules against the real Postgres, the real stage runner and the YouTube
 * and Google OAuth emulators: an account whose Google project is spent is deferred while the
 * dimension's other account publishes, and published by the drain after the reset; YouTube's 403
 * quotaExceeded defers and corrects the ledger; a refused grant marks the account needs_reconnect
 * and defers it until a new connect. No unit fails for quota and no video is uploaded twice. Two
 * publishers racing for a project's last upload call: exactly one gets it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import type { PipelineDeps } from "../../functions/pipeline/deps.ts";
import { encryptCredentials } from "../../shared/crypto/credentials.ts";
import { credentialKeyRing } from "../../shared/crypto/credential-keys.ts";
import { createSql } from "../../shared/db/client.ts";
import { QuotaBucketSpentError } from "../../shared/db/errors.ts";
import { storeAccountCredentials } from "../../shared/db/rpc/accounts.ts";
import { beginPublication, drainDeferredPublications } from "../../shared/db/rpc/publications.ts";
import { reserveYouTubeCall } from "../../shared/db/rpc/quota-ledger.ts";
import * as db from "../../stack/db.ts";
import { adminSql } from "../fixtures/admin-sql.ts";
import {
  addYouTubeAccount,
  publicationsOf,
  type PublishBench,
  runStages as runStagesWith,
  runStatusOf,
  startPublishBench,
  stopPublishBench,
  unitAtPublish as unitAtPublishOf,
  unitOf,
  uploadedVideos as uploadedVideosOn,
} from "./fixtures/publish-stage.ts";

const admin = adminSql();
/** A refresh token the OAuth emulator accepts (it issued it); any other one is refused with invalid_grant. */
const GOOD_REFRESH_TOKEN = "emulator-refresh-publish-deferral";

let emulator: PublishBench["emulator"];
let env: Record<string, string>;
let deps: PipelineDeps;
let videoPath: string;

let bench: PublishBench;

beforeAll(async () => {
  bench = await startPublishBench("publish-deferral", randomBytes(300 * 1024));
  ({ emulator, env, deps, videoPath } = bench);
}, 60_000);

beforeEach(async () => {
  await db.reset({ log: () => {} });
  await fetch(`${emulator.url}/_emulator/reset`, { method: "POST" });
}, 60_000);

afterAll(() => stopPublishBench(bench), 60_000);

/** A channel of `dimension` connected through `project`, with sealed credentials for `refreshToken`. */
function addAccount(dimension: string, handle: string, project: string, refreshToken = GOOD_REFRESH_TOKEN): Promise<string> {
  return addYouTubeAccount(admin, { dimension, handle, project, refreshToken, key: env.CREDENTIALS_KEY! });
}

const unitAtPublish = (dimension: string) => unitAtPublishOf(admin, deps, videoPath, dimension);
const runStages = async (): Promise<void> => void (await runStagesWith(deps));
const publications = (unitId: string) => publicationsOf(admin, unitId);
const unitStage = async (unitId: string) => (await unitOf(admin, unitId)).stage;
const runStatus = (runId: string) => runStatusOf(admin, runId);
const uploadedVideos = () => uploadedVideosOn(emulator.url);

async function nextPacificMidnight(): Promise<Date> {
  const [row] = await admin<{ at: Date }[]>`select mdame.youtube_quota_resets_at(mdame.youtube_quota_day(now())) as at`;
  return row!.at;
}

/** What the reset does to the ledger, without waiting for midnight: today's charges become yesterday's, and deferrals fall due. */
async function passPacificMidnight(): Promise<void> {
  await admin`update mdame.quota_ledger set quota_day = quota_day - 1`;
  await admin`update mdame.publications set not_before = now() - interval '1 second' where status = 'deferred' and not_before is not null`;
}

describe("publishing by YouTube's rules", () => {
  test("an account whose project is spent is deferred while the other publishes, and published after the reset", async () => {
    const open = await addAccount("tech-explained", "@open-channel", "open-project.apps.googleusercontent.com");
    const spent = await addAccount("tech-explained", "@spent-channel", "spent-project.apps.googleusercontent.com");
    await admin`update mdame.youtube_projects set upload_calls_per_day = 0 where oauth_client_id = 'spent-project.apps.googleusercontent.com'`;
    const { runId, unitId } = await unitAtPublish("tech-explained");

    await runStages();
    let pubs = await publications(unitId);
    expect(pubs.get(open)?.status).toBe("published");
    expect(pubs.get(spent)).toMatchObject({ status: "deferred", deferred_reason: "quota_spent", not_before: await nextPacificMidnight() });
    expect(await unitStage(unitId)).toBe("deferred");
    expect(await runStatus(runId)).toBe("completed");
    expect(await uploadedVideos()).toHaveLength(1);

    // Before the reset the drain sends nothing.
    expect(await drainDeferredPublications(deps.sql)).toBe(0);
    await admin`update mdame.youtube_projects set upload_calls_per_day = 100 where oauth_client_id = 'spent-project.apps.googleusercontent.com'`;
    await passPacificMidnight();
    expect(await drainDeferredPublications(deps.sql)).toBe(1);
    await runStages();
    pubs = await publications(unitId);
    expect(pubs.get(spent)?.status).toBe("published");
    expect(await unitStage(unitId)).toBe("published");
    const videos = await uploadedVideos();
    expect(videos.map((v) => v.id).sort()).toEqual([pubs.get(open)!.external_id!, pubs.get(spent)!.external_id!].sort());
  }, 120_000);

  test("YouTube's 403 quotaExceeded defers the publication and fills the project's bucket for the day", async () => {
    const account = await addAccount("sains-singkat", "@busy-channel", "busy-project.apps.googleusercontent.com");
    await emulator.armFault({ service: "youtube", kind: "quota_exceeded", count: 1 });
    const { runId, unitId } = await unitAtPublish("sains-singkat");

    await runStages();
    const pub = (await publications(unitId)).get(account);
    expect(pub).toMatchObject({ status: "deferred", deferred_reason: "quota_spent", not_before: await nextPacificMidnight() });
    expect(await unitStage(unitId)).toBe("deferred");
    expect(await runStatus(runId)).toBe("completed");
    const ledger = await admin<{ entry: string; status: string; cost: number }[]>`
      select entry, status, cost from mdame.quota_ledger where oauth_client_id = 'busy-project.apps.googleusercontent.com' order by created_at, entry`;
    expect([...ledger]).toEqual([{ entry: "call", status: "released", cost: 1 }, { entry: "correction", status: "settled", cost: 100 }]);
    const [deadLetters] = await admin<{ n: number }[]>`select count(*)::int as n from mdame.dead_letters`;
    expect(deadLetters!.n).toBe(0);
    expect(await uploadedVideos()).toHaveLength(0);
  }, 120_000);

  test("a refused grant marks the account needs_reconnect and defers it; a new connect lets the drain publish it", async () => {
    const healthy = await addAccount("tech-explained", "@healthy-channel", "one-project.apps.googleusercontent.com");
    const revoked = await addAccount("tech-explained", "@revoked-channel", "one-project.apps.googleusercontent.com", "a-revoked-refresh-token");
    const { unitId } = await unitAtPublish("tech-explained");

    await runStages();
    let pubs = await publications(unitId);
    expect(pubs.get(healthy)?.status).toBe("published");
    expect(pubs.get(revoked)).toMatchObject({ status: "deferred", deferred_reason: "needs_reconnect", not_before: null });
    const [account] = await admin<{ health_state: string; health_reason: string }[]>`
      select health_state, health_reason from mdame.dimension_accounts where id = ${revoked}`;
    expect(account!.health_state).toBe("needs_reconnect");
    expect(account!.health_reason).toContain("invalid_grant");
    const [event] = await admin<{ detail: { fix: string } }[]>`select detail from mdame.events where kind = 'account_needs_reconnect'`;
    expect(event!.detail.fix).toBe("mdame account connect youtube --dimension tech-explained --channel @revoked-channel");
    const released = await admin<{ status: string }[]>`select status from mdame.quota_ledger where account_id = ${revoked}`;
    expect([...released]).toEqual([{ status: "released" }]);
    expect(await drainDeferredPublications(deps.sql)).toBe(0);

    // The operator connects the channel again: new credentials clear the state.
    await storeAccountCredentials(
      deps.sql,
      revoked,
      await encryptCredentials(credentialKeyRing({ CREDENTIALS_KEY: env.CREDENTIALS_KEY! }), { refresh_token: GOOD_REFRESH_TOKEN }, revoked),
    );
    expect(await drainDeferredPublications(deps.sql)).toBe(1);
    await runStages();
    pubs = await publications(unitId);
    expect(pubs.get(revoked)?.status).toBe("published");
    expect(await unitStage(unitId)).toBe("published");
    expect(await uploadedVideos()).toHaveLength(2);
  }, 120_000);

  test("two publishers racing for a project's last upload call: exactly one gets it", async () => {
    const a = await addAccount("tech-explained", "@race-a", "race-project.apps.googleusercontent.com");
    const b = await addAccount("sains-singkat", "@race-b", "race-project.apps.googleusercontent.com");
    await admin`update mdame.youtube_projects set upload_calls_per_day = 1 where oauth_client_id = 'race-project.apps.googleusercontent.com'`;
    const first = await beginPublication(deps.sql, (await unitAtPublish("tech-explained")).unitId, a);
    const second = await beginPublication(deps.sql, (await unitAtPublish("sains-singkat")).unitId, b);

    // Two publishers, each on its own connection; each holds its transaction open a moment after
    // reserving, so the other one's reservation runs while it is still open.
    const one = createSql(env.DB_URL!, { max: 1, application: "it-race-a" });
    const two = createSql(env.DB_URL!, { max: 1, application: "it-race-b" });
    try {
      const reserve = (sql: typeof one, accountId: string, publicationId: string) =>
        sql.begin(async (tx) => {
          const entry = await reserveYouTubeCall(tx, { accountId, callKind: "videos.insert", publicationId });
          await tx`select pg_sleep(0.3)`;
          return entry;
        }).then((entry) => ({ ok: true as const, entry }), (error) => ({ ok: false as const, error }));
      const results = await Promise.all([reserve(one, a, first.id), reserve(two, b, second.id)]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const refused = results.find((r) => !r.ok);
      expect(refused?.ok === false && refused.error).toBeInstanceOf(QuotaBucketSpentError);
      expect(refused?.ok === false && (refused.error as QuotaBucketSpentError).notBefore).toEqual(await nextPacificMidnight());
      const [held] = await admin<{ n: number }[]>`
        select count(*)::int as n from mdame.quota_ledger where oauth_client_id = 'race-project.apps.googleusercontent.com' and status <> 'released'`;
      expect(held!.n).toBe(1);
    } finally {
      await Promise.all([one.end({ timeout: 2 }), two.end({ timeout: 2 })]);
    }
  }, 60_000);
});
