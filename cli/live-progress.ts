/**
 * `mdame run --wait`: follows a run until it ends. On a terminal the progress block is redrawn in
 * place (ANSI cursor moves); anywhere else (a pipe, a CI log) each change is appended as plain lines.
 */
import { type RunState, type RunStatus, TERMINAL_RUN_STATES } from "../shared/contracts/operator.ts";
import { describeProgress, onlyReviewsLeft } from "./run-progress.ts";
import type { ApiClient } from "./api-client.ts";
import { CliError, EXIT } from "./errors.ts";
import { type CommandContext, type Screen, terminalText, truncate } from "./output.ts";

/** Cursor to the start of the line `n` lines up, then erase from there to the end of the screen. */
const rewind = (n: number) => `\x1b[${n}F\x1b[J`;

function isTerminal(state: string): boolean {
  return (TERMINAL_RUN_STATES as readonly string[]).includes(state as RunState);
}

/** Renders successive statuses of one run on a screen. */
export class ProgressView {
  private drawnLines = 0;
  private lastPlain = "";

  constructor(private readonly screen: Screen, private readonly startedMs: number) {}

  private header(status: RunStatus, nowMs: number): string {
    const elapsed = Math.round((nowMs - this.startedMs) / 1000);
    return `run ${status.run.id}  ${status.run.status}  ${elapsed}s`;
  }

  update(status: RunStatus, nowMs: number): void {
    if (this.screen.isTTY) {
      // A pseudo-terminal may report 0 columns: assume a common width then.
      const width = Math.max(20, (this.screen.columns || 100) - 1);
      const lines = [this.header(status, nowMs), ...describeProgress(status, nowMs).map((l) => `  ${l}`)].map((l) => truncate(terminalText(l), width));
      this.screen.write(`${this.drawnLines > 0 ? rewind(this.drawnLines) : ""}${lines.join("\n")}\n`);
      this.drawnLines = lines.length;
      return;
    }
    // Plain output: only what changed, never the ticking clock, so a log stays readable.
    const body = [status.run.status, ...describeProgress(status)].join("\n");
    if (body === this.lastPlain) return;
    this.lastPlain = body;
    const stamp = `[${String(Math.round((nowMs - this.startedMs) / 1000)).padStart(5)}s]`;
    const lines = [`run ${status.run.id} ${status.run.status}`, ...describeProgress(status, nowMs).map((l) => `  ${l}`)];
    this.screen.write(lines.map((l) => `${stamp} ${terminalText(l)}\n`).join(""));
  }
}

interface WatchOptions {
  intervalMs?: number;
  /** Consecutive network failures tolerated before giving up (the API may restart under us). */
  maxNetworkFailures?: number;
}

/** Polls the run's status, drawing each, until it is terminal; resolves with the last status. */
export async function watchRun(api: ApiClient, runId: string, ctx: CommandContext, options: WatchOptions = {}): Promise<RunStatus> {
  const interval = options.intervalMs ?? 1000;
  const maxFailures = options.maxNetworkFailures ?? 5;
  const view = new ProgressView(ctx.out, ctx.now());
  let failures = 0;
  for (;;) {
    let status: RunStatus;
    try {
      status = await api.runStatus(runId);
      failures = 0;
    } catch (error) {
      if (error instanceof CliError && error.exitCode === EXIT.unreachable && ++failures < maxFailures) {
        await ctx.sleep(interval * 2 ** failures);
        continue;
      }
      throw error;
    }
    view.update(status, ctx.now());
    if (isTerminal(status.run.status) || onlyReviewsLeft(status)) return status;
    await ctx.sleep(interval);
  }
}
