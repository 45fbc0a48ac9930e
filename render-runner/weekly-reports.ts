/**
 * The render-runner builds the weekly reports (shared/reports/weekly-build.ts) beside its renders:
 * a pass a minute claims the due ones. A Bun process, because drawing a report's charts (vega, then
 * resvg's WebAssembly) passes the Edge's 256 MB per request (docs/reports/benchmarks.md). A report
 * waits at most a pass after pg_cron queues it; a failed one is retried on the backoff
 * mdame.fail_weekly_report sets.
 */
import { FailureLog } from "../shared/logging/failure-log.ts";
import { buildPendingWeeklyReports, type WeeklyReportDeps } from "../shared/reports/weekly-build.ts";

/** Time between two passes. */
export const WEEKLY_REPORT_PASS_MS = 60_000;

/** Starts the passes (the first at once); `stop()` waits for the pass in flight. */
export function startWeeklyReports(deps: WeeklyReportDeps, everyMs = WEEKLY_REPORT_PASS_MS): { stop(): Promise<void> } {
  const failures = new FailureLog(deps.logger, { subject: "weekly reports pass", level: "warn" });
  let running = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const pass = () => {
    inFlight = buildPendingWeeklyReports(deps).then(
      (done) => {
        failures.succeeded();
        if (done.built + done.failed > 0) deps.logger.info({ stage: "report", ...done }, "weekly reports pass");
      },
      (error) => failures.failed(error, { retry_in_ms: everyMs }),
    ).finally(() => {
      if (running) timer = setTimeout(pass, everyMs);
    });
  };
  pass();
  return {
    stop: async () => {
      running = false;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
