/** Queues: depth and oldest message per pgmq queue, its pull workers' heartbeats, leases held and stale, the lease holders' last leases. */
import { html } from "hono/html";
import type { OpsQueue, OpsQueues } from "../../../shared/contracts/ops.ts";
import type { DashboardApi } from "../ops-client.ts";
import { badge, type Html, section, table, when } from "../layout.ts";

/** Seconds as people read an age: 45 s, 12 min, 3 h 5 min, 2 d 4 h. */
export function seconds(s: number | null): string {
  if (s === null) return "-";
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.round((s % 86400) / 3600)} h`;
}

/** "2 live of 3" for a queue's pull workers; "-" for a queue the pipeline drains itself. */
function workerCount(x: OpsQueue): Html | string {
  if (x.workers.length === 0) return "-";
  const live = x.workers.filter((w) => w.status === "live").length;
  return html`<span class="${live === 0 && x.visible > 0 ? "bad" : ""}">${live} live of ${x.workers.length}</span>`;
}

function render(q: OpsQueues, nowMs: number): Html {
  const queues = q.queues.map((x) =>
    html`
      <tr data-queue="${x.queue_name}">
        <td><code>${x.queue_name}</code></td>
        <td class="num">${x.depth}</td>
        <td class="num">${x.visible}</td>
        <td class="num">${x.leased}</td>
        <td class="num">${x.invisible - x.leased}</td>
        <td>${seconds(x.oldest_msg_age_s)}</td>
        <td class="num">${x.total_messages}</td>
        <td>${workerCount(x)}</td>
      </tr>
    `
  );
  const pullers = q.queues.flatMap((x) =>
    x.workers.map((w) =>
      html`
        <tr data-worker="${w.worker_id}">
          <td><code>${x.queue_name}</code></td>
          <td><code>${w.worker_id}</code></td>
          <td>${w.host}</td>
          <td class="num">${w.pid}</td>
          <td class="num">${w.jobs_held} of ${w.concurrency}</td>
          <td>${when(w.started_at, nowMs)}</td>
          <td>${when(w.last_beat_at, nowMs)}</td>
          <td>${badge(w.status)}</td>
        </tr>
      `
    )
  );
  const leases = (Object.entries(q.leases) as [string, { held: number; stale: number }][]).map(([kind, l]) =>
    html`
      <tr>
        <td>${kind.replace("_", " ")}</td>
        <td class="num">${l.held}</td>
        <td class="num${l.stale > 0 ? " bad" : ""}">${l.stale}</td>
      </tr>
    `
  );
  const stale = q.stale_leases.map((l) =>
    html`
      <tr>
        <td>${badge(l.kind)}</td>
        <td><code>${l.subject}</code></td>
        <td>${l.holder ?? "-"}</td>
        <td>${when(l.expired_at, nowMs)}</td>
        <td>${seconds(l.expired_for_s)}</td>
      </tr>
    `
  );
  const holders = q.lease_holders.map((w) =>
    html`
      <tr>
        <td>${w.kind.replace("_", " ")}</td>
        <td>${w.worker_id}</td>
        <td class="num">${w.leases_held}</td>
        <td>${when(w.latest_lease_until, nowMs)}</td>
        <td>${badge(w.live ? "live" : "idle")}</td>
      </tr>
    `
  );
  return html`
    <section id="queues"><h2>pgmq queues <span class="muted">(database clock ${when(q.now, nowMs)})</span></h2>${table(
      ["queue", "depth", "visible", "leased", "delayed", "oldest message", "sent ever", "workers"],
      queues,
      "No queue.",
    )}</section>
    <section
      id="workers"><h2>Pull workers</h2><p class="muted">Each gpu-worker and render-runner beats with the jobs it holds; one that missed three beats is stale. Workers that beat within the last day.</p>${table(
        ["queue", "worker", "host", "pid", "jobs held", "started", "last beat", "state"],
        pullers,
        "No pull worker has beaten in the last day.",
      )}</section>
    <section id="leases"><h2>Leases</h2>${table(["kind", "held", "stale"], leases, "No lease.")}
    ${stale.length
      ? html`<h3>Stale leases (expired, not reclaimed)</h3>${table(["kind", "subject", "holder", "expired", "for"], stale, "")}`
      : html`<p class="empty">No stale lease.</p>`}</section>
    <section
      id="lease-holders"><h2>Lease holders</h2><p class="muted">Stage runners and scene generators keep no heartbeat row: a heartbeat extends their lease, and the furthest lease each set is its last sign of life.</p>${table(
        ["kind", "worker", "leases held", "lease until", "state"],
        holders,
        "No stage runner or scene generator has held a lease yet.",
      )}</section>
  `;
}

export function queuesPage({ ops }: DashboardApi, nowMs: number): Promise<Html> {
  return section("the queues", () => ops.queues(), (q) => render(q, nowMs));
}
