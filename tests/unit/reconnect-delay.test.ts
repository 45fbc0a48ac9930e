import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { createSql, reconnectDelay } from "../../shared/db/client.ts";

describe("reconnect delay of the engine's pools", () => {
  test("closes in quick succession wait longer and longer, up to 30 s", () => {
    let clock = 0;
    const delay = reconnectDelay(() => clock, () => 0.999);
    const waits: number[] = [];
    for (let i = 0; i < 14; i += 1) {
      const wait = delay();
      waits.push(wait);
      clock += wait * 1000 + 5; // the next attempt fails 5 ms after its wait
    }
    expect(waits[0]).toBe(0.05);
    for (let i = 1; i < waits.length; i += 1) expect(waits[i]!).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(waits.at(-1)).toBeGreaterThan(29.9);
    expect(Math.max(...waits)).toBeLessThanOrEqual(30);
  });

  test("connections that close together are one failure: a restart costs the whole pool one short wait", () => {
    let clock = 0;
    const delay = reconnectDelay(() => clock, () => 0.999);
    const together = Array.from({ length: 50 }, () => delay());
    expect(Math.max(...together)).toBe(0.05);
    // Their reconnects fail together too: one more step, not fifty.
    clock += 60;
    const next = Array.from({ length: 50 }, () => delay());
    expect(Math.max(...next)).toBeLessThanOrEqual(0.1);
    expect(Math.max(...next)).toBeGreaterThan(0.05);
  });

  test("after a quiet spell the pacing starts over", () => {
    let clock = 0;
    const delay = reconnectDelay(() => clock, () => 0.999);
    for (let i = 0; i < 6; i += 1) clock += delay() * 1000 + 5;
    clock += 60_000;
    expect(delay()).toBe(0.05);
  });

  test("jitter keeps every wait between 50 ms and its ceiling", () => {
    let clock = 0;
    const delay = reconnectDelay(() => clock, () => 0);
    for (let i = 0; i < 10; i += 1) {
      const wait = delay();
      expect(wait).toBe(0.05);
      clock += 60;
    }
  });
});

/** A server that refuses every login as pg_hba.conf's `reject` does: FATAL 28000, then it hangs up. */
function refusingServer(): Promise<{ server: Server; port: number; attempts: () => number }> {
  let attempts = 0;
  const field = (code: string, text: string) => Buffer.concat([Buffer.from(code), Buffer.from(text), Buffer.from([0])]);
  const fields = Buffer.concat([field("S", "FATAL"), field("V", "FATAL"), field("C", "28000"), field("M", "pg_hba.conf rejects connection"), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(fields.length + 4);
  const refusal = Buffer.concat([Buffer.from("E"), length, fields]);
  const server = createServer((socket) => {
    attempts += 1;
    socket.once("data", () => socket.end(refusal));
    socket.on("error", () => {});
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port, attempts: () => attempts }))
  );
}

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

test("a LISTEN on a database that refuses every login does not hammer it", async () => {
  const { server, port, attempts } = await refusingServer();
  const sql = createSql(`postgres://u:p@127.0.0.1:${port}/db`, { max: 1, application: "reconnect-test" });
  cleanup = async () => {
    await sql.end({ timeout: 0 }).catch(() => {});
    await new Promise((resolve) => server.close(resolve));
  };
  // postgres.js re-LISTENs whenever the listening connection closes, without a pause of its own.
  void sql.listen("mdame_wake", () => {}).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  // Unpaced, this is hundreds of logins; paced, the waits double from 50 ms: about a dozen at most.
  expect(attempts()).toBeGreaterThan(0);
  expect(attempts()).toBeLessThan(40);
}, 20_000);
