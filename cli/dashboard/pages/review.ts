/**
 * Review (docs/guides/review.md): the rendered videos waiting for the operator, and one of them
 * with its render playing, its script, scenes and quality gate, and two forms: approve (with the
 * title and description editable within a script's own limits) and reject (with a reason). Both
 * forms carry the session's CSRF token and post to the dashboard, which calls the operator API.
 */
import { html } from "hono/html";
import { QualityReport } from "../../../shared/contracts/quality.ts";
import { type Review, REVIEW_TEXT_LIMITS, type ReviewDetail, type ReviewSummary } from "../../../shared/contracts/review.ts";
import type { DashboardApi } from "../ops-client.ts";
import { badge, type Html, section, sectionError, table, when } from "../layout.ts";
import { qualityTable, safeHttpUrl } from "./videos.ts";

/** The bounds the forms show (the API checks them again): the contract's own. */
const TITLE_MAX = REVIEW_TEXT_LIMITS.title.max;
const DESCRIPTION_MAX = REVIEW_TEXT_LIMITS.description.max;
const REASON_MAX = REVIEW_TEXT_LIMITS.reason.max;

function waitingRow(r: ReviewSummary, nowMs: number): Html {
  return html`
    <tr id="review-${r.unit_id}">
      <td><a href="/review/${r.unit_id}">${r.title ?? r.unit_id}</a></td>
      <td>${r.dimension_id}</td>
      <td>${when(r.requested_at, nowMs)}</td>
      <td>${when(r.expires_at, nowMs)}</td>
      <td>${r.on_expiry === "publish" ? "published" : "rejected"}</td>
      <td>${r.quality_passed === null ? "-" : badge(r.quality_passed ? "passed" : "failed")}</td>
    </tr>
  `;
}

export function reviewsPage({ api }: DashboardApi, nowMs: number): Promise<Html> {
  return section(
    "the videos waiting for review",
    () => api.listReviews(null),
    ({ reviews }) =>
      table(
        ["title", "dimension", "waiting since", "expires", "then", "quality gate"],
        reviews.map((r) => waitingRow(r, nowMs)),
        "No video waits for review.",
      ),
  );
}

function forms(r: ReviewDetail, csrf: string): Html {
  if (r.decision !== null || r.stage !== "awaiting_review") {
    const how = r.decision === null ? `no longer waits (stage ${r.stage})` : `was ${r.decision} by ${r.decided_by}${r.reason ? `: ${r.reason}` : ""}`;
    return html`<p class="muted">This video ${how}.</p>`;
  }
  return html`
    <section id="decide">
      <h2>Decide</h2>
      <form class="confirm" method="post" action="/review/${r.unit_id}/approve">
        <input type="hidden" name="csrf" value="${csrf}">
        <p><label>Title<br><input type="text" name="title" required maxlength="${TITLE_MAX}" size="80" value="${r.script.title ?? ""}"></label></p>
        <p><label>Description<br><textarea name="description" required maxlength="${DESCRIPTION_MAX}" rows="6" cols="80">${r.script.description ??
          ""}</textarea></label></p>
        <button type="submit">Approve and publish</button>
      </form>
      <form class="confirm" method="post" action="/review/${r.unit_id}/reject">
        <input type="hidden" name="csrf" value="${csrf}">
        <p><label>Reason<br><input type="text" name="reason" required maxlength="${REASON_MAX}" size="80"></label></p>
        <button type="submit" class="danger">Reject (never uploaded)</button>
      </form>
    </section>
  `;
}

function detail(r: ReviewDetail, csrf: string, nowMs: number): Html {
  const src = safeHttpUrl(r.video.signed_url);
  const player = src
    ? html`
      <video id="render" controls preload="metadata" width="270" src="${src}"></video>
      <p class="muted">Signed link, valid until ${when(r.video.signed_url_expires_at, nowMs)}.</p>
    `
    : html`<p class="empty">${r.video.video_key ? "The render is not in storage (or the store cannot sign links)." : "No render recorded."}</p>`;
  const quality = QualityReport.safeParse(r.quality);
  return html`
    <section id="review">
      <p>${r.dimension_id} · ${badge(r.decision ?? r.stage)} · waiting since ${when(r.requested_at, nowMs)} · expires ${when(
        r.expires_at,
        nowMs,
      )}, then ${r.on_expiry === "publish" ? "published" : "rejected"}</p>
      <p class="muted">unit <code>${r.unit_id}</code> · run <code>${r.run_id}</code> · topic ${r.topic ?? "-"}</p>
    </section>
    <div class="cols">
      <section id="player"><h2>Render</h2>${player}</section>
      <section id="script">
        <h2>Script</h2>
        <p><strong>${r.script.title ?? "-"}</strong></p>
        <p class="reason">${r.script.description ?? "-"}</p>
        <p class="muted">${r.script.hashtags.join(" ")}</p>
        <p><em>${r.script.hook ?? ""}</em></p>
        <p class="reason">${r.script.narration ?? ""}</p>
      </section>
    </div>
    <section id="quality"><h2>Quality gate</h2>${qualityTable(quality.success ? quality.data : null)}</section>
    <section id="scenes"><h2>Scenes</h2>${table(
      ["#", "length", "backend", "prompt", "narration"],
      r.scenes.map((s) =>
        html`
          <tr>
            <td class="num">${s.index}</td>
            <td>${s.duration_s} s</td>
            <td><code>${s.backend ?? "-"}</code></td>
            <td class="reason">${s.prompt}</td>
            <td class="reason">${s.narration}</td>
          </tr>
        `
      ),
      "No scene recorded.",
    )}</section>
    ${forms(r, csrf)}
  `;
}

/** One review's page; `mediaOrigins` are what its CSP must let the player load. */
export async function reviewPage(
  { api }: DashboardApi,
  unitId: string,
  csrf: string,
  nowMs: number,
): Promise<{ title: string; body: Html; mediaOrigins: string[]; failed: boolean }> {
  try {
    const r = await api.getReview(unitId);
    const src = safeHttpUrl(r.video.signed_url);
    return { title: `Review: ${r.script.title ?? unitId}`, body: detail(r, csrf, nowMs), mediaOrigins: src ? [new URL(src).origin] : [], failed: false };
  } catch (error) {
    return { title: "Review", body: sectionError(`the review of unit ${unitId}`, error), mediaOrigins: [], failed: true };
  }
}

/** What a decision did. */
export function decided(r: Review): Html {
  const edited = Object.keys(r.edits ?? {});
  const what = r.decision === "approved"
    ? `approved${edited.length > 0 ? ` with a new ${edited.join(" and ")}` : ""}: it is queued for publishing`
    : `rejected (${r.reason ?? "no reason"}): it will not be uploaded`;
  return html`
    <p class="ok" role="status">Unit <code>${r.unit_id}</code> ${what}.</p>
    <p><a href="/review">Back to the videos waiting for review</a></p>
  `;
}
