/** `mdame dlq list|retry`: the dead letters, and sending one back to its queue. */
import type { DeadLetter } from "../../shared/contracts/operator.ts";
import type { ApiClient } from "../api-client.ts";
import { EXIT } from "../errors.ts";
import { type CommandContext, formatAge, formatTable, printJson, printLine, printLines } from "../output.ts";

/** The dead-letter table, as lines; the last error is cut to fit `width`. Pure, for tests. */
export function formatDeadLetters(rows: DeadLetter[], nowMs: number, width?: number): string[] {
  if (rows.length === 0) return ["no dead letters"];
  return formatTable(
    ["id", "queue", "unit", "attempts", "age", "retried", "last error"],
    rows.map((d) => [
      String(d.id),
      d.queue_name,
      d.unit_id ? d.unit_id.slice(0, 8) : "-",
      String(d.read_ct),
      formatAge(d.created_at, nowMs),
      d.retried_msg_id === null ? "-" : `as ${d.retried_msg_id}`,
      d.last_error,
    ]),
    width ?? 120,
  );
}

export async function dlqListCommand(command: { limit: number; json: boolean }, api: ApiClient, ctx: CommandContext): Promise<number> {
  const { dead_letters } = await api.listDeadLetters(command.limit);
  if (command.json) printJson(ctx.out, dead_letters);
  else printLines(ctx.out, formatDeadLetters(dead_letters, ctx.now(), ctx.out.columns || undefined));
  return EXIT.ok;
}

export async function dlqRetryCommand(command: { id: string; json: boolean }, api: ApiClient, ctx: CommandContext): Promise<number> {
  const result = await api.retryDeadLetter(command.id);
  if (command.json) {
    printJson(ctx.out, result);
  } else {
    const unit = result.unit_id ? ` for unit ${result.unit_id}` : "";
    const run = result.run_id ? ` (run ${result.run_id})` : "";
    printLine(ctx.out, `dead letter ${result.dead_letter_id} retried: message ${result.msg_id} queued on ${result.queue_name}${unit}${run}`);
  }
  return EXIT.ok;
}
