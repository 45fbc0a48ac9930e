/** `mdame run [--dimension d] [--key k] [--wait] [--json]`: trigger (or find) a run, optionally follow it. */
import type { ApiClient } from "../api-client.ts";
import { EXIT } from "../errors.ts";
import { watchRun } from "../live-progress.ts";
import { type CommandContext, printJson, printLine } from "../output.ts";
import { onlyReviewsLeft } from "../run-progress.ts";
import type { RunStatus } from "../../shared/contracts/operator.ts";

/** Exit code for a run that was followed: 0 when it completed, or when all it waits for is review (docs/guides/review.md). */
export function exitCodeForRun(status: RunStatus): number {
  return status.run.status === "completed" || onlyReviewsLeft(status) ? EXIT.ok : EXIT.failure;
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
    return exitCodeForRun(status);
  }
  printLine(
    ctx.out,
    `run ${triggered.run_id} ${triggered.created ? "created" : `already exists (${triggered.status})`}; following it (Ctrl-C stops watching, not the run)`,
  );
  const status = await watchRun(api, triggered.run_id, ctx);
  if (onlyReviewsLeft(status)) {
    printLine(ctx.out, `run ${status.run.id} waits for review; it closes once each video is decided:`);
    for (const u of status.units.filter((unit) => unit.stage === "awaiting_review")) {
      printLine(ctx.out, `  ${u.dimension_id} "${u.title ?? u.id}": mdame review approve ${u.id}  (or: mdame review reject ${u.id} --reason "...")`);
    }
    return exitCodeForRun(status);
  }
  printLine(ctx.out, `run ${status.run.id} ${status.run.status}${status.run.error ? `: ${status.run.error}` : ""}`);
  return exitCodeForRun(status);
}
