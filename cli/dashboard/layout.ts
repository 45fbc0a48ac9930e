/**
 * The frame of every dashboard page and the small pieces pages share. Every value goes through
 * hono/html's template, which escapes it; `raw` is never given data.
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { formatAge } from "../output.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The pages of the nav, in its order. */
export const NAV = [
  { path: "/", label: "Overview" },
  { path: "/queues", label: "Queues" },
  { path: "/dead-letters", label: "Dead letters" },
  { path: "/review", label: "Review" },
  { path: "/videos", label: "Videos" },
  { path: "/quota", label: "Quota & accounts" },
  { path: "/schedules", label: "Schedules" },
  { path: "/analytics", label: "Analytics" },
  { path: "/spend", label: "Spend" },
] as const;

interface PageFrame {
  title: string;
  /** The nav entry to mark; null for pages outside the nav (sign-in, errors). */
  active: string | null;
  /** Where the API is, shown in the header. */
  apiUrl?: string;
  /** The session's CSRF token: the header's sign-out form carries it. */
  csrf?: string;
}

export function layout(frame: PageFrame, body: Html): Html {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${frame.title} · MD-AME</title>
        <link rel="stylesheet" href="/style.css">
      </head>
      <body>
        <header>
    <span class="brand">MD-AME</span>
    ${frame.active === null ? "" : html`<nav>${
      NAV.map((n) =>
        html`
          <a href="${n.path}" ${n.path === frame.active
            ? html`
              aria-current="page"
            `
            : ""}>${n.label}</a>
        `
      )
    }</nav>`}
    ${frame.apiUrl ? html`<span class="api" title="the operator API this dashboard reads">${frame.apiUrl}</span>` : ""}
    ${frame.csrf
      ? html`<form class="sign-out" method="post" action="/sign-out"><input type="hidden" name="csrf" value="${frame.csrf}"><button type="submit">Sign out</button></form>`
      : ""}
        </header>
        <main>
    <h1>${frame.title}</h1>
    ${body}
        </main>
      </body>
    </html>
  `;
}

/** A timestamp in UTC with its age: `2026-12-02 07:50 UTC (3m ago)`; `-` when absent. */
export function when(iso: string | null | undefined, nowMs: number): Html {
  if (!iso) return html`<span class="muted">-</span>`;
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return html`${iso}`;
  const utc = new Date(ms).toISOString().replace("T", " ").slice(0, 19);
  const age = Math.abs(ms - nowMs) < 1000 ? "now" : ms > nowMs ? `in ${formatAge(new Date(nowMs).toISOString(), ms)}` : `${formatAge(iso, nowMs)} ago`;
  return html`<time datetime="${new Date(ms).toISOString()}">${utc} UTC <span class="age">(${age})</span></time>`;
}

/** A section's failure, said plainly (the API's message, never a stack trace). */
export function sectionError(what: string, error: unknown): Html {
  const message = error instanceof Error ? error.message : String(error);
  return html`<div class="error" role="alert"><strong>Could not load ${what}.</strong> ${message}</div>`;
}

/** Loads one section's data and renders it; a failure renders as an error box, not a broken page. */
export async function section<T>(what: string, load: () => Promise<T>, render: (data: T) => Html): Promise<Html> {
  let data: T;
  try {
    data = await load();
  } catch (error) {
    return sectionError(what, error);
  }
  return render(data);
}

/** A table, or a sentence when there are no rows. */
export function table(headers: string[], rows: Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`
    <table>
      <thead>
        <tr>${headers.map((h) => html`<th>${h}</th>`)}</tr>
      </thead>
      <tbody>${rows}</tbody>
    </table>
  `;
}

/** A state as a coloured tag. */
export function badge(state: string): Html {
  const tone = /fail|dead|reject|needs|stale|error|rolled/.test(state) ? "bad" : /complet|publish|ok|sent|passed|active|live/.test(state) ? "good" : "neutral";
  return html`<span class="badge ${tone}">${state}</span>`;
}

/** The page of a 4xx answer. */
export function messagePage(title: string, message: string, hint?: string): Html {
  return layout({ title, active: null }, html`<p>${message}</p>${hint ? html`<p class="muted">${hint}</p>` : ""}`);
}
