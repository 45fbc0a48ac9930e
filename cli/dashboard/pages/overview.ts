/** Overview: today's run per dimension with its stage funnel, counts by state, the last failures. */
import { html } from "hono/html";
import type { OpsFailure, OpsOverview, OpsStateCount } from "../../../shared/contracts/ops.ts";
import { WORK_UNIT_STAGES } from "../../../shared/contracts/work-unit.ts";
import type { DashboardApi } from "../ops-client.ts";
import { badge, type Html, section, table, when } from "../layout.ts";

function dimensions(overview: OpsOverview, nowMs: number): Html {
  const rows = overview.dimensions.map((d) =>
    html`
      <tr
        data-dimension="${d.dimension_id}"><td><strong>${d.dimension_id}</strong><br><span class="muted">${d.display_name}</span></td><td>${d.run
          ? html`${badge(d.run.status)}<br><span class="muted">${when(d.run.created_at, nowMs)}</span>`
          : html`<span class="muted">no run today</span>`}</td><td>${d.ingest_status ? badge(d.ingest_status) : "-"}</td><td class="num">${d
          .topics_seen}</td><td class="num">${d.units_created}</td>${d.funnel.map((f) =>
            html`<td class="num${f.units === 0 ? " zero" : ""}">${f.units}</td>`
          )}</tr>
    `
  );
  return html`<section id="today"><h2>Today, ${overview.today} <span class="muted">(engine clock ${when(overview.engine_now, nowMs)})</span></h2>${
    table(["dimension", "run", "ingest", "topics", "units", ...WORK_UNIT_STAGES], rows, "No active dimension.")
  }</section>`;
}

function countList(title: string, counts: OpsStateCount[]): Html {
  return html`<div class="card"><h3>${title}</h3>${
    counts.length === 0
      ? html`<p class="empty">none</p>`
      : html`<ul class="counts">${counts.map((c) => html`<li>${badge(c.state)} <span class="num">${c.count}</span></li>`)}</ul>`
  }</div>`;
}

function failureRow(f: OpsFailure, nowMs: number): Html {
  const what = f.kind === "dead_letter"
    ? html`<a href="/dead-letters#dead-letter-${f.id}">dead letter ${f.id}</a>${
      f.retried
        ? html`
          ${badge("retried")}
        `
        : ""
    }`
    : f.kind === "unit"
    ? html`unit <code>${f.id.slice(0, 8)}</code>`
    : html`run <code>${f.id.slice(0, 8)}</code>`;
  return html`
    <tr>
      <td>${when(f.at, nowMs)}</td>
      <td>${badge(f.kind)} ${what}</td>
      <td>${f.dimension_id ?? "-"}</td>
      <td>${f.stage ?? "-"}</td>
      <td class="reason">${f.reason}</td>
    </tr>
  `;
}

export function overviewPage({ ops }: DashboardApi, nowMs: number): Promise<Html> {
  return section("the overview", () => ops.overview(20), (overview) =>
    html`
      ${dimensions(overview, nowMs)}
      <section id="counts">
        <h2>Counts by state</h2>
        <div class="cols">${countList("Today's runs", overview.counts.runs)}${countList("Today's units", overview.counts.work_units)}${countList(
          "Stage tasks",
          overview.counts.stage_tasks,
        )}${countList("Worker jobs", overview.counts.worker_jobs)}</div>
      </section>
      <section id="failures"><h2>Last failures</h2>${table(
        ["when", "what", "dimension", "stage / queue", "reason"],
        overview.failures.map((f) => failureRow(f, nowMs)),
        "No failure recorded.",
      )}</section>
    `);
}
