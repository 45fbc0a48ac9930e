/**
 * The demo's last act: the closed loop's measurements. With the run's videos published, the
 * engine's clock (mdame.set_engine_clock) and the emulator's clock move 3 days (and an hour) ahead,
 * the hourly job's statement (mdame.schedule_analytics_fetches) enqueues each published YouTube
 * video's day-3 window and wakes the runner, the tick fetches the figures from the YouTube
 * Analytics emulator through the engine's own client, and the rows are read back. Both clocks go
 * back to real time afterwards, whatever happened. Answers one entry per published YouTube video
 * of the run for out/demo-summary.json.
 */
import { createSql } from "../../shared/db/client.ts";
import { LOCAL_DB_URL } from "../../shared/config/local-stack.ts";

const AHEAD_MS = 3 * 86_400_000 + 3600_000;
const WAIT_MS = 90_000;

export interface DemoAnalytics {
  dimension: string;
  external_id: string;
  window_days: number | null;
  views: number | null;
  engaged_views: number | null;
  average_view_percentage: number | null;
  average_view_duration_s: number | null;
  likes: number | null;
  retention_points: number;
  /** fetched, or what the fetch said while it waited (the last error), or "not enqueued". */
  status: string;
}

interface Row {
  dimension_id: string;
  external_id: string;
  window_days: number | null;
  views: string | null;
  engaged_views: string | null;
  average_view_percentage: string | null;
  average_view_duration_s: string | null;
  likes: string | null;
  retention_points: number;
  fetch_status: string | null;
  last_error: string | null;
}

async function setEmulatorClock(emulatorUrl: string, offsetMs: number | null): Promise<void> {
  const response = offsetMs === null
    ? await fetch(`${emulatorUrl}/_emulator/clock`, { method: "DELETE" })
    : await fetch(`${emulatorUrl}/_emulator/clock`, { method: "POST", body: JSON.stringify({ offset_ms: offsetMs }) });
  if (!response.ok) throw new Error(`the emulator clock refused the move (${response.status}): ${await response.text()}`);
}

/**
 * Puts the engine's and the emulator's clocks back to real time before the run, saying so when
 * either was moved (a soak, a test, an interrupted demo leave them moved, and both persist): a
 * video uploaded on a moved clock would have its analytics windows counted from the wrong day.
 */
export async function realTimeClocks(env: Record<string, string>, say: (line: string) => void): Promise<void> {
  const sql = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-demo-clock" });
  try {
    const rows = await sql<{ value: string }[]>`select value from mdame.settings where key = 'clock_offset'`;
    const offset = rows[0]?.value;
    if (offset !== undefined) {
      say(`the engine's clock was moved (${offset}): back to real time`);
      await sql`select mdame.set_engine_clock(null)`;
    }
  } finally {
    await sql.end({ timeout: 2 });
  }
  const clock = await fetch(`${env.EMULATOR_URL}/_emulator/clock`);
  if (!clock.ok) throw new Error(`the emulator clock did not answer (${clock.status}): ${await clock.text()}`);
  const { offset_ms } = await clock.json() as { offset_ms: number };
  if (offset_ms !== 0) {
    say(`the emulator's clock was moved (${Math.round(offset_ms / 3_600_000)} h): back to real time`);
    await setEmulatorClock(env.EMULATOR_URL!, null);
  }
}

/** Fetches the day-3 analytics of the run's published YouTube videos; one entry per video. */
export async function demoAnalytics(env: Record<string, string>, runId: string, say: (line: string) => void): Promise<DemoAnalytics[]> {
  // The demo owns this local database (it resets it): it reads and moves the clock as the superuser.
  const sql = createSql(LOCAL_DB_URL, { max: 1, application: "mdame-demo-analytics" });
  const read = () =>
    sql<Row[]>`
    select u.dimension_id, p.external_id, v.window_days, v.views, v.engaged_views, v.average_view_percentage, v.average_view_duration_s, v.likes,
           coalesce(jsonb_array_length(v.retention), 0) as retention_points, f.status as fetch_status, f.last_error
      from mdame.publications p
      join mdame.work_units u on u.id = p.unit_id
      left join mdame.analytics_fetches f on f.publication_id = p.id and f.window_days = 3
      left join mdame.video_analytics v on v.publication_id = p.id and v.window_days = 3
     where u.run_id = ${runId} and p.platform = 'youtube' and p.status = 'published'
     order by u.dimension_id, p.external_id`;
  try {
    say("analytics: moving the engine's and the emulator's clocks 3 days ahead, as if the videos had been up since");
    await sql`select mdame.set_engine_clock(make_interval(secs => ${AHEAD_MS / 1000}))`;
    await setEmulatorClock(env.EMULATOR_URL!, AHEAD_MS);
    const [{ enqueued }] = await sql<{ enqueued: number }[]>`select mdame.schedule_analytics_fetches() as enqueued`;
    say(`analytics: the hourly schedule enqueued ${enqueued} day-3 fetch(es) and woke the runner`);
    // The wake reaches the tick through the edge host; a tick asked here as well changes nothing but timing.
    await fetch(`${env.FUNCTIONS_URL}/pipeline/tick`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.SERVICE_ROLE_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ reason: "poll" }),
    }).then((r) => r.body?.cancel());
    const deadline = Date.now() + WAIT_MS;
    let rows = await read();
    while (rows.some((r) => r.fetch_status === "queued" || (r.fetch_status === null && enqueued > 0)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rows = await read();
    }
    const entries = rows.map((r): DemoAnalytics => ({
      dimension: r.dimension_id,
      external_id: r.external_id,
      window_days: r.window_days,
      views: r.views === null ? null : Number(r.views),
      engaged_views: r.engaged_views === null ? null : Number(r.engaged_views),
      average_view_percentage: r.average_view_percentage === null ? null : Number(r.average_view_percentage),
      average_view_duration_s: r.average_view_duration_s === null ? null : Number(r.average_view_duration_s),
      likes: r.likes === null ? null : Number(r.likes),
      retention_points: r.retention_points,
      status: r.views !== null ? "fetched" : r.fetch_status === null ? "not enqueued" : `${r.fetch_status}: ${r.last_error ?? "waiting"}`,
    }));
    for (const e of entries) {
      say(
        e.status === "fetched"
          ? `analytics: ${e.dimension} ${e.external_id} day 3: ${e.views} views, ${e.engaged_views} engaged, ${e.average_view_percentage}% viewed on average (${e.average_view_duration_s}s), ${e.likes} likes`
          : `analytics: ${e.dimension} ${e.external_id}: ${e.status}`,
      );
    }
    return entries;
  } finally {
    await sql`select mdame.set_engine_clock(null)`.catch(() => {});
    await setEmulatorClock(env.EMULATOR_URL!, null).catch(() => {});
    await sql.end({ timeout: 2 });
  }
}
