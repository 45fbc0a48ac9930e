/**
 * The pools' connect pacing (shared/db/connect-pacing.ts). postgres.js 3.4 reconnects without any
 * wait when a login is refused while a query of the connection's previous life is still recorded on
 * it (the server ended that session mid-query, as a restart does): the refusal waits for a
 * ReadyForQuery that never comes, and the close that follows reconnects at once. A fake server
 * that plays exactly that shows the pool's connects stay paced.
 */
import { afterEach, describe, expect, test } from "bun:test";
import net from "node:net";
import { createSql } from "../../shared/db/client.ts";
import { MAX_WAIT_MS, pacedConnects, type PgSocketOptions, STABLE_MS } from "../../shared/db/connect-pacing.ts";

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function errorResponse(code: string, text: string): Buffer {
  const fields = [["S", "FATAL"], ["V", "FATAL"], ["C", code], ["M", text]];
  return message("E", Buffer.concat([...fields.map(([k, v]) => Buffer.from(`${k}${v}\0`, "latin1")), Buffer.from([0])]));
}

const authenticationOk = () => message("R", Buffer.from([0, 0, 0, 0]));
const readyForQuery = () => message("Z", Buffer.from("I", "latin1"));
/** The answer to an extended-protocol query that returns no rows: parsed, bound, no data, done. */
const emptyResult = () =>
  Buffer.concat([
    message("1", Buffer.alloc(0)),
    message("2", Buffer.alloc(0)),
    message("n", Buffer.alloc(0)),
    message("C", Buffer.from("SELECT 0\0", "latin1")),
    readyForQuery(),
  ]);

/**
 * A server whose first session logs in, answers postgres.js's own first query (the array types it
 * fetches) and is ended by an administrator at the next one (57P01); every later login is refused
 * (28000), as by a pg_hba.conf that rejects everyone.
 */
async function restartedIntoRefusal(): Promise<{ url: string; logins: () => number; close: () => Promise<void> }> {
  let logins = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const first = logins++ === 0;
    let messages = 0;
    socket.on("data", () => {
      messages += 1;
      if (messages === 1 && first) socket.write(Buffer.concat([authenticationOk(), readyForQuery()]));
      else if (messages === 1) socket.end(errorResponse("28000", 'pg_hba.conf rejects connection for host "127.0.0.1"'));
      else if (messages === 2) socket.write(emptyResult());
      else socket.end(errorResponse("57P01", "terminating connection due to administrator command"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `postgres://engine:secret@127.0.0.1:${port}/postgres`,
    logins: () => logins,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("a pool whose server restarted into refusing every login", () => {
  test("connects a handful of times, not hundreds, while its queries keep coming", async () => {
    const server = await restartedIntoRefusal();
    cleanups.push(server.close);
    const sql = createSql(server.url, { max: 1, application: "pacing-test" });
    let stop = false;
    const loop = (async () => {
      while (!stop) await sql`select 1`.catch(() => new Promise((resolve) => setTimeout(resolve, 1)));
    })();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    stop = true;
    await sql.end({ timeout: 0 }).catch(() => {});
    await loop;
    // The first login and a few paced retries (waits of 50 ms and up, doubling); unpaced, the
    // pool logs in again as fast as the refusals come back, hundreds of times in this spell.
    expect(server.logins()).toBeGreaterThan(1);
    expect(server.logins()).toBeLessThan(25);
  });
});

describe("pacedConnects", () => {
  function harness() {
    let clock = 0;
    const waits: number[] = [];
    const made: net.Socket[] = [];
    const connect = pacedConnects({
      now: () => clock,
      random: () => 1,
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
      connect: () => {
        const socket = new net.Socket();
        made.push(socket);
        return socket;
      },
    });
    const pg: PgSocketOptions = { host: ["127.0.0.1"], port: [5432] };
    return {
      waits,
      made,
      open: () => connect(pg),
      advance: (ms: number) => void (clock += ms),
      close: (socket: net.Socket) => void socket.emit("close", false),
    };
  }

  test("the first connect does not wait; each quick close makes the next wait longer, up to the ceiling", async () => {
    const h = harness();
    for (let i = 0; i < 12; i++) {
      const socket = await h.open();
      h.advance(3);
      h.close(socket);
    }
    expect(h.made).toHaveLength(12);
    expect(h.waits[0]).toBe(50);
    for (let i = 1; i < h.waits.length; i++) expect(h.waits[i]!).toBeGreaterThanOrEqual(h.waits[i - 1]!);
    expect(h.waits.at(-1)).toBe(MAX_WAIT_MS);
  });

  test("a connection that stayed open starts the pacing over: the next connect goes at once", async () => {
    const h = harness();
    for (let i = 0; i < 4; i++) {
      const socket = await h.open();
      h.close(socket);
    }
    const lasting = await h.open();
    h.advance(STABLE_MS);
    h.close(lasting);
    const waitsBefore = h.waits.length;
    await h.open();
    expect(h.waits.length).toBe(waitsBefore);
  });
});
