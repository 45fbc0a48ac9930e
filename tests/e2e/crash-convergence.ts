/**
 * What a pipeline run must look like after crashes, once it is terminal: the state an undisturbed
 * run ends in, and no trace of a retry that did a side effect twice. Used by crash-scenarios.ts;
 * each check reads the database, the asset store or the emulators as a user or the platform would.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEnv, STORAGE_ENV_KEYS } from "../../shared/config/env.ts";
import type { Sql } from "../../shared/db/client.ts";
import { AssetNotFoundError } from "../../shared/storage/asset-store.ts";
import { createAssetStore } from "../../shared/storage/create-asset-store.ts";
import { paths } from "../../stack/paths.ts";
import { localStackEnv } from "../../stack/stack-env.ts";

const TERMINAL_UNIT = new Set(["published", "rejected", "failed"]);

/** Collects every broken guarantee of a run, so one failure report shows all of them. */
export class Checks {
  readonly failures: string[] = [];
  check(what: string, ok: boolean, detail: unknown = undefined): void {
    if (!ok) this.failures.push(detail === undefined ? what : `${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
}

/** The state an undisturbed run ends in, and no trace of a second attempt that did its side effect twice. */
export async function checkConverged(checks: Checks, sql: Sql, runId: string, emulatorUrl: string): Promise<void> {
  const [run] = await sql`select status, error from mdame.pipeline_runs where id = ${runId}`;
  checks.check("the run completed", run?.status === "completed", run);

  const units = await sql`select id, dimension_id, stage, error, video from mdame.work_units where run_id = ${runId} order by dimension_id`;
  const dimensions = await sql`select id from mdame.dimensions where active`;
  checks.check("one unit per active dimension", units.length === dimensions.length, units.map((u) => u.dimension_id));
  for (const unit of units) {
    checks.check(`unit ${unit.dimension_id} is terminal`, TERMINAL_UNIT.has(unit.stage), unit.stage);
    checks.check(`unit ${unit.dimension_id} is published`, unit.stage === "published", { stage: unit.stage, error: unit.error });
  }

  // One published publication per unit and active account, each with its platform id.
  const expected = await sql`
    select u.id as unit_id, u.dimension_id, a.id as account_id,
           (select count(*)::int from mdame.publications p where p.unit_id = u.id and p.account_id = a.id and p.status = 'published') as published
      from mdame.work_units u join mdame.dimension_accounts a on a.dimension_id = u.dimension_id and a.active
     where u.run_id = ${runId}`;
  for (const row of expected) {
    checks.check(`unit ${row.dimension_id} has exactly one published publication for account ${row.account_id}`, row.published === 1, row.published);
  }
  const published = await sql`select unit_id, external_id, video_key from mdame.publications where status = 'published'`;
  const externalIds = published.map((p) => p.external_id as string);

  // What the platform saw: one video per publication, each the rendered file byte for byte.
  const videos = await (await fetch(`${emulatorUrl}/_emulator/youtube/videos`)).json() as { id: string; sha256: string; size_bytes: number }[];
  checks.check("the YouTube emulator holds as many videos as there are published publications", videos.length === published.length, {
    videos: videos.map((v) => v.id),
    published: externalIds,
  });
  // Renders are read back through the store the stack's workers wrote them to.
  const store = createAssetStore(loadEnv(STORAGE_ENV_KEYS, localStackEnv()));
  const scratch = await mkdtemp(join(tmpdir(), "mdame-convergence-"));
  try {
    for (const pub of published) {
      const matches = videos.filter((v) => v.id === pub.external_id);
      checks.check(`published video ${pub.external_id} is on the platform`, matches.length === 1, matches.length);
      const file = join(scratch, `${pub.external_id}.mp4`);
      const found = await store.getFile(pub.video_key as string, file).then(() => true, (error) => {
        if (error instanceof AssetNotFoundError) return false;
        throw error;
      });
      const sha = found ? createHash("sha256").update(readFileSync(file)).digest("hex") : "(render missing from storage)";
      checks.check(`video ${pub.external_id} on the platform is the rendered file`, matches[0]?.sha256 === sha, {
        platform: matches[0]?.sha256,
        rendered: sha,
      });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const sessions = uploadSessions();
  const withBytes = sessions.filter((s) => s.received > 0);
  checks.check("one upload session received bytes per publication (a resumed upload reuses its session)", withBytes.length === published.length, sessions);

  // No work left behind, and each job was queued once.
  for (const queue of ["stage_tasks", "visual_generation", "render"]) {
    const [row] = await sql.unsafe(`select count(*)::int as n from pgmq.q_${queue}`);
    checks.check(`no message left in queue ${queue}`, row.n === 0, row.n);
  }
  const renders = await sql`select message->>'unit_id' as unit_id, count(*)::int as n from pgmq.a_render group by 1 having count(*) > 1`;
  checks.check("at most one render job archived per unit", renders.length === 0, renders);
  const scenes = await sql`select message->>'scene_id' as scene_id, count(*)::int as n from pgmq.a_visual_generation group by 1 having count(*) > 1`;
  checks.check("at most one visual job archived per scene", scenes.length === 0, scenes);
  const renderFiles = (await store.list("renders")).filter((a) => a.key.endsWith(".mp4")).map((a) => a.key);
  checks.check("one rendered video per unit in storage", renderFiles.length === units.length, renderFiles);
  const dead = await sql`select queue_name, msg_id, read_ct, last_error from mdame.dead_letters`;
  checks.check("nothing dead-lettered", dead.length === 0, dead);

  await sql`select mdame.tick()`;
  const locks = await sql`select name, holder, lease_expires_at from mdame.system_locks`;
  checks.check("no lock held after one tick", locks.length === 0, locks);
}

/** The emulator's upload sessions, as it keeps them on disk, with the bytes each received. */
export function uploadSessions(): { upload_id: string; received: number; video_id: string | null }[] {
  const root = join(paths.emulators, "youtube");
  const dir = join(root, "sessions");
  if (!existsSync(dir)) return [];
  const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  return readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => {
    const session = JSON.parse(readFileSync(join(dir, f), "utf8")) as { upload_id: string; video_id?: string };
    const bin = join(dir, `${session.upload_id}.bin`);
    const received = existsSync(bin) ? size(bin) : session.video_id ? size(join(root, "videos", `${session.video_id}.mp4`)) : 0;
    return { upload_id: session.upload_id, received, video_id: session.video_id ?? null };
  });
}
