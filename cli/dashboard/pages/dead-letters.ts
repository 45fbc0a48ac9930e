/** Dead letters: messages that used up their attempts, each with a retry behind a confirmation. */
import { html } from "hono/html";
import type { DeadLetter, DeadLetterRetry } from "../../../shared/contracts/operator.ts";
import type { DashboardApi } from "../ops-client.ts";
import { badge, type Html, section, table, when } from "../layout.ts";

function row(d: DeadLetter, nowMs: number): Html {
  const retried = d.retried_msg_id === null
    ? html`<a class="button" href="/dead-letters/${d.id}/retry">Retry…</a>`
    : html`${badge("retried")} as message ${d.retried_msg_id} ${when(d.retried_at, nowMs)}`;
  return html`
    <tr id="dead-letter-${d.id}">
      <td class="num">${d.id}</td>
      <td>${d.queue_name}</td>
      <td>${d.unit_id ? html`<code title="${d.unit_id}">${d.unit_id.slice(0, 8)}</code>` : "-"}</td>
      <td class="num">${d.read_ct}</td>
      <td>${when(d.created_at, nowMs)}</td>
      <td class="reason">${d.last_error}</td>
      <td>${retried}</td>
    </tr>
  `;
}

export function deadLettersPage({ api }: DashboardApi, nowMs: number): Promise<Html> {
  return section(
    "the dead letters",
    () => api.listDeadLetters(100),
    ({ dead_letters }) =>
      table(["id", "queue", "unit", "attempts", "dead since", "last error", "retry"], dead_letters.map((d) => row(d, nowMs)), "No dead letter."),
  );
}

/** The confirmation of a retry: what will happen, and the form that does it. */
export function confirmRetry(deadLetter: DeadLetter, csrf: string, nowMs: number): Html {
  if (deadLetter.retried_msg_id !== null) {
    return html`
      <p>Dead letter ${deadLetter.id} was already retried (message ${deadLetter.retried_msg_id}, ${when(deadLetter.retried_at, nowMs)}).</p>
      <p><a href="/dead-letters">Back to the dead letters</a></p>
    `;
  }
  return html`
    <p>Queue the message of dead letter <strong>${deadLetter.id}</strong> on <code>${deadLetter.queue_name}</code> again${deadLetter.unit_id
      ? html`, putting unit <code>${deadLetter.unit_id}</code> (and its run) back where the work stopped`
      : ""}?</p>
    <p class="reason">Last error: ${deadLetter.last_error}</p>
    <form class="confirm" method="post" action="/dead-letters/${deadLetter.id}/retry">
      <input type="hidden" name="csrf" value="${csrf}">
      <button type="submit" class="danger">Retry dead letter ${deadLetter.id}</button>
      <a href="/dead-letters">Cancel</a>
    </form>
  `;
}

export function retried(result: DeadLetterRetry): Html {
  return html`
    <p class="ok" role="status">Dead letter ${result.dead_letter_id} retried: message ${result.msg_id} queued on <code>${result
      .queue_name}</code>${result.unit_id
      ? html`
        for unit <code>${result.unit_id}</code>
      `
      : ""}.</p>
    <p><a href="/dead-letters">Back to the dead letters</a></p>
  `;
}
