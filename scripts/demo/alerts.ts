/**
 * The demo's alerts (docs/reference/alerts.md): every alert the engine raised since the demo started, with
 * its delivery state and the text the Telegram emulator received for it. Alerts still pending are
 * given a little time: the stack delivers them on its next tick.
 */
import { createSql } from "../../shared/db/client.ts";

export interface DemoAlert {
  kind: string;
  dimension_id: string | null;
  summary: string;
  occurrences: number;
  status: string;
  chat_id: string | null;
  message_ids: number[];
  /** What the chat shows (the emulator's plain text of each message). */
  telegram_text: string[];
}

interface EmulatedMessage {
  chat_id: string;
  message_id: number;
  text: string;
}

const WAIT_FOR_PENDING_MS = 20_000;

export async function collectDemoAlerts(dbUrl: string, emulatorUrl: string, since: Date, log: (line: string) => void): Promise<DemoAlert[]> {
  const sql = createSql(dbUrl, { max: 1, application: "mdame-demo" });
  try {
    const read = () =>
      sql`select kind, dimension_id, summary, occurrences, status, chat_id, message_ids
                             from mdame.alerts where last_raised_at >= ${since} order by created_at`;
    let rows = await read();
    const deadline = Date.now() + WAIT_FOR_PENDING_MS;
    while (rows.some((r) => r.status === "pending") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rows = await read();
    }
    const response = await fetch(`${emulatorUrl}/_emulator/telegram/messages`);
    const messages = response.ok ? (await response.json()) as EmulatedMessage[] : [];
    const alerts = rows.map((r) => {
      const ids = (r.message_ids as Array<string | number>).map(Number);
      return {
        kind: r.kind as string,
        dimension_id: r.dimension_id as string | null,
        summary: r.summary as string,
        occurrences: r.occurrences as number,
        status: r.status as string,
        chat_id: r.chat_id as string | null,
        message_ids: ids,
        telegram_text: ids.map((id) => messages.find((m) => m.chat_id === r.chat_id && m.message_id === id)?.text ?? ""),
      };
    });
    if (alerts.length === 0) log(`alerts: none raised since ${since.toISOString().slice(11, 19)} UTC`);
    for (const a of alerts) {
      log(
        `alert ${a.kind}${a.dimension_id ? ` (${a.dimension_id})` : ""} x${a.occurrences}: ${a.status}${
          a.chat_id ? ` to Telegram chat ${a.chat_id}` : ""
        } - ${a.summary}`,
      );
    }
    return alerts;
  } finally {
    await sql.end({ timeout: 2 });
  }
}
