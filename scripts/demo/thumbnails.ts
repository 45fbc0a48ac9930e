/**
 * The demo's wait for the Shorts thumbnails: once the run is over, each published YouTube video's
 * cover is set by the tick after YouTube (here its emulator) has processed the video
 * (docs/reference/distribution.md, "Thumbnails"). The demo asks for a tick every few seconds while
 * any is queued (pg_cron wakes one every minute anyway: asking changes nothing but timing) and
 * reads what became of each. Answers one entry per published YouTube video of the run.
 */
import { createSql } from "../../shared/db/client.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";

const WAIT_MS = 180_000;
const TICK_EVERY_MS = 5_000;

export interface DemoThumbnail {
  external_id: string;
  /** set, given_up (with why), queued (still waiting when the demo stopped), or none (the render had no cover). */
  status: string;
  cover_key: string | null;
}

export async function demoThumbnails(env: Record<string, string>, runId: string, say: (line: string) => void): Promise<DemoThumbnail[]> {
  // The demo owns this local database (it resets it): it reads as the superuser.
  const sql = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-demo-thumbnails" });
  const read = () =>
    sql<{ external_id: string; status: string | null; cover_key: string | null; last_error: string | null }[]>`
    select p.external_id, t.status, t.cover_key, t.last_error
      from mdame.publications p
      join mdame.work_units u on u.id = p.unit_id
      left join mdame.thumbnail_sets t on t.publication_id = p.id
     where u.run_id = ${runId} and p.platform = 'youtube' and p.status = 'published'
     order by p.external_id`;
  try {
    let rows = await read();
    if (rows.some((r) => r.status === "queued")) say("thumbnails: waiting for YouTube to process the videos, then setting each one's cover");
    const deadline = Date.now() + WAIT_MS;
    while (rows.some((r) => r.status === "queued") && Date.now() < deadline) {
      await fetch(`${env.FUNCTIONS_URL}/pipeline/tick`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ reason: "poll" }),
      }).then((r) => r.body?.cancel());
      await new Promise((resolve) => setTimeout(resolve, TICK_EVERY_MS));
      rows = await read();
    }
    const entries = rows.map((r): DemoThumbnail => ({
      external_id: r.external_id,
      status: r.status === null ? "none" : r.status === "given_up" ? `given_up: ${r.last_error ?? "?"}` : r.status,
      cover_key: r.cover_key,
    }));
    for (const e of entries) say(`thumbnails: ${e.external_id}: ${e.status}${e.cover_key ? ` (${e.cover_key})` : ""}`);
    return entries;
  } finally {
    await sql.end({ timeout: 2 });
  }
}
