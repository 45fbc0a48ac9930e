/** `mdame run [--dimension d] [--key k] [--wait] [--json]`: trigger (or find) a run, optionally follow it. */
import type { ApiClient } from "../api-client.ts";
import { EXIT } from "../errors.ts";
import { watchRun } from "../live-progress.ts";
import { type CommandContext, printJson, printLine } from "../output.ts";

/** Exit code for a run that has ended: 0 only when it completed. */
export function exitCodeForRun(state: string): number {
  return state === "completed" ? EXIT.ok : EXIT.failure;
}

export async function runCommand(
  command: { dimension: string | null; key: string | null; wait: boolean; json: boolean },
  api: ApiClient,
  ctx: CommandContext,
): Promise<number> {
  const triggered = await api.triggerRun({
    ...(command.dimension === null ? {} : { dimension: command.dimension }),
    ...(command.key === null ? {} : { idempotency_key: command.key }),
  });
  if (!command.wait) {
    if (command.json) printJson(ctx.out, triggered);
    else printLine(ctx.out, `run ${triggered.run_id} ${triggered.created ? "created" : `already exists (${triggered.status})`}`);
    return EXIT.ok;
  }

  if (command.json) {
    // Machine output: one document at the end, no live view.
    const status = await watchRun(api, triggered.run_id, { ...ctx, out: { write: () => {} } });
    printJson(ctx.out, { ...triggered, status });
    return exitCodeForRun(status.run.status);
  }
  printLine(
    ctx.out,
    `run ${triggered.run_id} ${triggered.created ? "created" : `already exists (${triggered.status})`}; following it (Ctrl-C stops watching, not the run)`,
  );
  const status = await watchRun(api, triggered.run_id, ctx);
  printLine(ctx.out, `run ${status.run.id} ${status.run.status}${status.run.error ? `: ${status.run.error}` : ""}`);
  return exitCodeForRun(status.run.status);
}
