import { describe, expect, test } from "bun:test";
import { RestartWatch } from "../../stack/restart-alerts.ts";
import { formatAlerts } from "../../cli/commands/alerts.ts";
import { parseArgs } from "../../cli/args.ts";

describe("the supervisor's restart alert", () => {
  test("raises once when a component restarts 3 times within the window, not for restarts spread out", async () => {
    let now = 0;
    const raised: string[] = [];
    const watch = new RestartWatch({
      now: () => now,
      windowMs: 600_000,
      raise: async (a) => void raised.push(`${a.component} x${a.restarts} (${a.lastExit})`),
    });
    expect(await watch.record("edge", "code 1")).toBe(false);
    now += 400_000;
    expect(await watch.record("edge", "code 1")).toBe(false);
    now += 400_000; // the first restart left the window
    expect(await watch.record("edge", "code 1")).toBe(false);
    expect(await watch.record("render-runner", "signal SIGKILL")).toBe(false);
    now += 1000;
    expect(await watch.record("edge", "signal SIGSEGV")).toBe(true);
    expect(raised).toEqual(["edge x3 (signal SIGSEGV)"]);
    // A new window must fill before the next alert.
    expect(await watch.record("edge", "code 1")).toBe(false);
  });

  test("a raise that fails is reported, not thrown", async () => {
    const reports: string[] = [];
    const watch = new RestartWatch({ threshold: 1, raise: () => Promise.reject(new Error("database down")), report: (line) => reports.push(line) });
    expect(await watch.record("db", "code 1")).toBe(true);
    expect(reports).toEqual(["could not raise the restart alert for db: database down"]);
  });
});

describe("mdame alerts", () => {
  test("parses its flags", () => {
    expect(parseArgs(["alerts"])).toEqual({ name: "alerts", limit: 30, json: false });
    expect(parseArgs(["alerts", "--limit", "5", "--json"])).toEqual({ name: "alerts", limit: 5, json: true });
  });

  test("lists kind, dimension, occurrences and delivery; says when delivery is off", () => {
    const base = {
      id: "00000000-0000-4000-8000-000000000001",
      kind: "dead_letter" as const,
      dimension_id: "tech-explained",
      summary: "render dead-lettered",
      details: {},
      photo_key: null,
      status: "sent" as const,
      occurrences: 3,
      attempts: 1,
      next_attempt_at: "2026-12-02T10:00:00.000Z",
      last_error: null,
      created_at: "2026-12-02T10:00:00.000Z",
      last_raised_at: "2026-12-02T10:00:00.000Z",
      sent_at: "2026-12-02T10:00:00.000Z",
      chat_id: "-1",
      message_ids: [1],
      delivered_by: "edge" as const,
      net_request_id: null,
      net_posted_at: null,
    };
    const now = Date.parse("2026-12-02T10:05:00.000Z");
    const lines = formatAlerts(
      {
        alerts: [base, {
          ...base,
          kind: "run_failed",
          dimension_id: null,
          status: "failed",
          occurrences: 1,
          last_error: "Bad Request: chat not found",
          sent_at: null,
        }],
        delivery: { configured: false, default_chat: false },
      },
      now,
      200,
    );
    expect(lines[0]).toContain("delivery is off");
    expect(lines[1]).toMatch(/^age\s+kind\s+dimension\s+times\s+delivery\s+summary/);
    expect(lines[2]).toMatch(/dead_letter\s+tech-explained\s+3\s+sent 5m ago\s+render dead-lettered/);
    expect(lines[3]).toMatch(/run_failed\s+-\s+1\s+failed\s+render dead-lettered \[Bad Request: chat not found\]/);
  });
});
