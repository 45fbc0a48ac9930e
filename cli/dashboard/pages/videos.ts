/**
 * Videos: the recent publications with their platform links; one video's quality-gate measures,
 * scenes (backend and credit), analytics and its render, played from a signed Storage URL.
 */
import { html } from "hono/html";
import type { OpsScene, OpsVideo, OpsVideoDetail } from "../../../shared/contracts/ops.ts";
import type { QualityReport } from "../../../shared/contracts/quality.ts";
import type { DashboardApi } from "../ops-client.ts";
import { badge, type Html, section, sectionError, table, when } from "../layout.ts";
import { FIGURE_HEADERS, figureCells } from "./analytics.ts";

/** A link only when it is http(s): a `javascript:` URL in data never becomes one. */
export function safeHttpUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

function platformLink(v: OpsVideo): Html {
  const url = safeHttpUrl(v.url);
  if (!url) return html`${v.external_id ?? html`<span class="muted">not uploaded</span>`}`;
  return html`<a href="${url}" rel="noreferrer noopener" target="_blank">${v.external_id}</a>`;
}

function videoRow(v: OpsVideo, nowMs: number): Html {
  return html`
    <tr data-video="${v.id}">
      <td><a href="/videos/${v.id}">${v.title ?? v.unit_id.slice(0, 8)}</a></td>
      <td>${v.dimension_id}</td>
      <td>${v.platform} <span class="muted">${v.channel_handle}</span></td>
      <td>${badge(v.status)}${v.deferred_reason
        ? html`
          <span class="muted">${v.deferred_reason}</span>
        `
        : ""}</td>
      <td>${platformLink(v)}</td>
      <td>${when(v.published_at ?? v.created_at, nowMs)}</td>
    </tr>
  `;
}

export function videosPage({ ops }: DashboardApi, nowMs: number): Promise<Html> {
  return section(
    "the videos",
    () => ops.videos(50),
    ({ videos }) =>
      table(["title", "dimension", "account", "status", "platform link", "published"], videos.map((v) => videoRow(v, nowMs)), "No publication yet."),
  );
}

export function qualityTable(quality: QualityReport | null): Html {
  if (!quality) return html`<p class="empty">The quality gate recorded no measures for this render.</p>`;
  return html`<p>${badge(quality.passed ? "passed" : "failed")} integrated loudness ${quality.integrated_lufs ?? "-"} LUFS · true peak ${
    quality.true_peak_dbtp ?? "-"
  } dBTP · ${quality.duration_s} s</p>${
    table(
      ["check", "result", "measured", "bound", "reason"],
      quality.checks.map((c) =>
        html`
          <tr>
            <td>${c.check}</td>
            <td>${badge(c.passed ? "passed" : "failed")}</td>
            <td>${c.value ?? "-"}${c.unit ? ` ${c.unit}` : ""}</td>
            <td>${c.bound}</td>
            <td class="reason">${c.reason ?? ""}</td>
          </tr>
        `
      ),
      "No check recorded.",
    )
  }`;
}

function credit(scene: OpsScene): Html {
  if (!scene.credit) return html`<span class="muted">none</span>`;
  return html`<dl class="credit">${
    Object.entries(scene.credit).map(([k, v]) => {
      const text = typeof v === "string" ? v : JSON.stringify(v);
      const url = typeof v === "string" ? safeHttpUrl(v) : null;
      return html`
        <dt>${k}</dt>
        <dd>${url ? html`<a href="${url}" rel="noreferrer noopener" target="_blank">${text}</a>` : text}</dd>
      `;
    })
  }</dl>`;
}

function sceneRow(s: OpsScene): Html {
  return html`
    <tr>
      <td class="num">${s.scene_index}</td>
      <td>${badge(s.status)}</td>
      <td>${s.duration_s} s</td>
      <td><code>${s.backend ?? "-"}</code>${s.cache_hit
        ? html`
          <span class="muted">(cache)</span>
        `
        : ""}</td>
      <td>${credit(s)}</td>
      <td class="reason">${s.narration}</td>
    </tr>
  `;
}

function detail(d: OpsVideoDetail, nowMs: number): Html {
  const v = d.video;
  const src = safeHttpUrl(d.render.signed_url);
  const player = src
    ? html`
      <video id="render" controls preload="metadata" width="270" src="${src}"></video>
      <p class="muted">Signed link, valid until ${when(d.render.expires_at, nowMs)}.</p>
    `
    : html`<p class="empty">${d.render.key ? "The render is not in storage (or the store cannot sign links)." : "No render recorded."}</p>`;
  const analytics = d.analytics.map((a) =>
    html`
      <tr>
        <td>day ${a.window_days}</td>
        <td>${a.period_start} – ${a.period_end}</td>
        ${figureCells(a, nowMs)}
      </tr>
    `
  );
  return html`
    <section id="video">
      <p>${v.dimension_id} · ${v.platform} ${v.channel_handle} · ${badge(v.status)} · ${platformLink(v)} · published ${when(
        v.published_at,
        nowMs,
      )}${v.privacy_status
        ? html`
          · ${v.privacy_status}
        `
        : ""}</p>
      <p class="muted">publication <code>${v.id}</code> · unit <code>${v.unit_id}</code> · run <code>${v.run_id}</code></p>
    </section>
    <div class="cols">
      <section id="player"><h2>Render</h2>${player}${d.render.key
        ? html`<p class="muted"><code>${d.render.key}</code>${
          d.render.width
            ? html`
              · ${d.render.width}×${d.render.height}
            `
            : ""
        }${
          d.render.size_bytes
            ? html`
              · ${(d.render.size_bytes / 1e6).toFixed(1)} MB
            `
            : ""
        }</p>`
        : ""}</section>
      <section id="quality"><h2>Quality gate</h2>${qualityTable(d.quality)}</section>
    </div>
    <section id="scenes"><h2>Scenes</h2>${table(
      ["#", "state", "length", "backend", "credit", "narration"],
      d.scenes.map(sceneRow),
      "No scene recorded.",
    )}</section>
    <section id="analytics"><h2>Analytics</h2>${table(
      ["window", "period", ...FIGURE_HEADERS],
      analytics,
      "No analytics fetched yet.",
    )}</section>
  `;
}

/** One video's page; `mediaOrigins` are what its CSP must let the player load. */
export async function videoPage({ ops }: DashboardApi, publicationId: string, nowMs: number): Promise<{ title: string; body: Html; mediaOrigins: string[] }> {
  try {
    const d = await ops.video(publicationId);
    const src = safeHttpUrl(d.render.signed_url);
    return { title: d.video.title ?? `Video ${publicationId.slice(0, 8)}`, body: detail(d, nowMs), mediaOrigins: src ? [new URL(src).origin] : [] };
  } catch (error) {
    return { title: "Video", body: sectionError(`video ${publicationId}`, error), mediaOrigins: [] };
  }
}
