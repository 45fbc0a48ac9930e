/** `mdame run abort <run> [--reason text] [--json]`: roll a run back through the API. */
import type { AbortedRun } from "../../shared/contracts/operator.ts";
import type { ApiClient } from "../api-client.ts";
import { EXIT } from "../errors.ts";
import { type CommandContext, printJson, printLines } from "../output.ts";

/** What the operator reads after an abort. Pure, for tests. */
export function describeAbort(result: AbortedRun): string[] {
  const { run } = result;
  if (result.cancelled_units === 0 && result.released_assets.length === 0 && run.status !== "running") {
    const lines = [`run ${run.id} is ${run.status}: nothing left to cancel`];
    if (run.error) lines.push(`  ${run.error}`);
    return lines;
  }
  const lines = [
    `run ${run.id} ${run.status}`,
    `  ${result.cancelled_units} unit(s) cancelled, ${result.released_assets.length} asset(s) released, ${result.removed_assets} deleted from storage`,
  ];
  for (const failure of result.unremoved_assets) lines.push(`  not deleted: ${failure.key} (${failure.error})`);
  return lines;
}

export async function abortCommand(
  command: { run: string; reason: string | null; json: boolean },
  api: ApiClient,
  ctx: CommandContext,
): Promise<number> {
  const result = await api.abortRun(command.run, command.reason);
  if (command.json) printJson(ctx.out, result);
  else printLines(ctx.out, describeAbort(result));
  return EXIT.ok;
}
