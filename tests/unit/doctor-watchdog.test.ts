import { describe, expect, test } from "bun:test";
import { watchdog } from "../../cli/doctor/database.ts";
import type { WatchdogStatus } from "../../shared/db/rpc/alerts.ts";

const now = new Date("2026-12-07T10:00:00Z");
const healthy: WatchdogStatus = {
  now,
  tick_ok_at: new Date("2026-12-07T09:59:40Z"),
  tick_pending_since: null,
  failing: [],
  missing_secrets: [],
  heartbeat_url: false,
  job_active: true,
};

describe("doctor: the watchdog", () => {
  test("all well: when the last tick ended, and whether an outside monitor is pinged", () => {
    const result = watchdog(healthy);
    expect(result.status).toBe("ok");
    expect(result.message).toBe(
      "nothing failing; the last tick ended 20 s ago; it pages through Telegram from the database (no outside monitor: Vault secret mdame_heartbeat_url)",
    );
    expect(watchdog({ ...healthy, heartbeat_url: true }).message).toEndWith("and pings the outside monitor");
  });

  test("a failing check fails the doctor, with since when and what the watchdog said", () => {
    const result = watchdog({
      ...healthy,
      failing: [{ check: "tick", since: new Date("2026-12-07T09:55:00Z"), detail: "The pipeline tick has failed for 5 min" }],
    });
    expect(result.status).toBe("fail");
    expect(result.message).toBe("failing: tick since 2026-12-07 09:55 UTC (The pipeline tick has failed for 5 min)");
  });

  test("a watchdog that cannot page is a warning naming the Vault secret; a paused job is a failure", () => {
    const cannotPage = watchdog({ ...healthy, missing_secrets: ["mdame_telegram_bot_token"] });
    expect(cannotPage.status).toBe("warn");
    expect(cannotPage.message).toContain("cannot page: Vault has no mdame_telegram_bot_token");
    const paused = watchdog({ ...healthy, job_active: false });
    expect(paused.status).toBe("fail");
    expect(paused.fix).toBe("update cron.job set active = true where jobname = 'mdame-watchdog';");
    expect(watchdog({ ...healthy, job_active: null }).message).toBe("the pg_cron job mdame-watchdog is not scheduled");
  });
});
