/** The engine's pg_cron schedules with their last and next run, and "run now" behind a confirmation. */
import { html } from "hono/html";
import type { OpsSchedule, OpsScheduleRunNow } from "../../../shared/contracts/ops.ts";
import type { DashboardApi } from "../ops-client.ts";
import { badge, type Html, section, table, when } from "../layout.ts";

function row(s: OpsSchedule, nowMs: number): Html {
  const last = s.last_run;
  return html`
    <tr data-schedule="${s.name}">
      <td><code>${s.name}</code></td>
      <td><code>${s.schedule}</code> <span class="muted">UTC</span></td>
      <td>${badge(s.active ? "active" : "inactive")}</td>
      <td>${last
        ? html`${badge(last.status)} ${when(last.start_time, nowMs)}${last.return_message ? html`<br><span class="reason">${last.return_message}</span>` : ""}`
        : html`<span class="muted">none recorded</span>`}</td>
      <td>${when(s.next_run_at, nowMs)}</td>
      <td>${s.runnable ? html`<a class="button" href="/schedules/${s.name}/run">Run now…</a>` : html`<span class="muted">-</span>`}</td>
    </tr>
  `;
}

export function schedulesPage({ ops }: DashboardApi, nowMs: number): Promise<Html> {
  return section(
    "the schedules",
    () => ops.schedules(),
    (list) =>
      html`${list.cron_available ? "" : html`<p class="error">pg_cron is not installed on this database: nothing runs on a schedule.</p>`}${
        list.run_details_readable ? "" : html`<p class="muted">cron.job_run_details cannot be read: last runs are unknown.</p>`
      }${table(["job", "schedule", "state", "last run", "next run", ""], list.schedules.map((s) => row(s, nowMs)), "No engine schedule.")}`,
  );
}

export function confirmRunNow(schedule: OpsSchedule, csrf: string): Html {
  return html`
    <p>Run <code>${schedule.name}</code> now, outside its schedule <code>${schedule.schedule}</code>?</p>
    <p class="muted">It runs: <code>${schedule.command}</code></p>
    <form class="confirm" method="post" action="/schedules/${schedule.name}/run">
      <input type="hidden" name="csrf" value="${csrf}">
      <button type="submit" class="danger">Run ${schedule.name} now</button>
      <a href="/schedules">Cancel</a>
    </form>
  `;
}

export function ranNow(result: OpsScheduleRunNow, nowMs: number): Html {
  return html`
    <p class="ok" role="status"><code>${result.name}</code> ran <code>${result.function}</code> ${when(result.ran_at, nowMs)}.</p>
    <pre class="result">${JSON.stringify(result.result, null, 2)}</pre>
    <p><a href="/schedules">Back to the schedules</a></p>
  `;
}
