/** Quota per bucket (YouTube per Google project, TikTok per account window) and account health. */
import { html } from "hono/html";
import type { OpsQuota } from "../../../shared/contracts/ops.ts";
import type { DashboardApi } from "../ops-client.ts";
import { badge, type Html, section, table, when } from "../layout.ts";

function meter(used: number, limit: number): Html {
  const share = limit > 0 ? Math.min(100, Math.round((used / limit) * 100)) : 0;
  return html`<meter min="0" max="${limit}" value="${Math.min(used, limit)}" high="${Math.round(limit * 0.8)}"></meter> <span class="muted">${share} %</span>`;
}

function render(q: OpsQuota, nowMs: number): Html {
  const youtube = q.youtube.map((b) =>
    html`
      <tr data-bucket="${b.oauth_client_id}/${b.bucket}">
        <td><code>${b.oauth_client_id}</code></td>
        <td>${b.bucket}</td>
        <td class="num">${b.used}</td>
        <td class="num">${b.reserved}</td>
        <td class="num">${b.limit}</td>
        <td class="num">${b.remaining}</td>
        <td>${meter(b.used + b.reserved, b.limit)}</td>
      </tr>
    `
  );
  const tiktok = q.tiktok.map((w) =>
    html`
      <tr>
        <td>${w.channel_handle}</td>
        <td>${w.call_kind}</td>
        <td class="num">${w.used}</td>
        <td class="num">${w.limit}</td>
        <td>${w.window_s} s</td>
        <td>${meter(w.used, w.limit)}</td>
      </tr>
    `
  );
  const accounts = q.accounts.map((a) =>
    html`
      <tr data-account="${a.id}">
        <td>${a.dimension_id}</td>
        <td>${a.platform}</td>
        <td>${a.channel_handle}</td>
        <td>${badge(a.status)}${a.health_reason ? html`<br><span class="reason">${a.health_reason}</span> ${when(a.health_since, nowMs)}` : ""}</td>
        <td>${a.missing_scopes.length
          ? html`<span class="bad">missing ${a.missing_scopes.join(", ")}</span>`
          : a.granted_scopes === null
          ? html`<span class="muted">not recorded</span>`
          : "all granted"}</td>
        <td class="num">${a.uploads_24h} / ${a.upload_cap_24h}${a.upload_cap_full_until
          ? html`<br><span class="muted">full until ${when(a.upload_cap_full_until, nowMs)}</span>`
          : ""}</td>
      </tr>
    `
  );
  return html`<section id="youtube-quota"><h2>YouTube quota, day ${q.quota_day} <span class="muted">(resets ${when(q.resets_at, nowMs)})</span></h2>${
    table(["Google project", "bucket", "used", "reserved", "limit", "remaining", ""], youtube, "No YouTube call today.")
  }</section>
<section id="tiktok-quota"><h2>TikTok rate windows</h2>${
    table(["account", "call", "used", "limit", "window", ""], tiktok, "No TikTok call in its windows.")
  }</section>
<section id="accounts"><h2>Account health</h2>${
    table(["dimension", "platform", "account", "health", "scopes", "uploads (24 h)"], accounts, "No account connected: `mdame account connect`.")
  }</section>`;
}

export function quotaPage({ ops }: DashboardApi, nowMs: number): Promise<Html> {
  return section("the quota and accounts", () => ops.quota(), (q) => render(q, nowMs));
}
