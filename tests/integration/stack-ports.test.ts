/**
 * What the local stack does about a port it needs that is taken (stack/ports.ts, used by
 * the supervisor's preflight and the cluster's start): a server listening on it is another program,
 * refused at once with its pid; the local end of a connection is waited for, and refused with the
 * `sysctl` that prevents it when it outlives the wait. Perl holds the connections: unlike Node and
 * Bun it binds without SO_REUSEADDR, as the kernel's own ephemeral binding does, so its socket
 * really keeps a server off the port. Also: the stack's ports really enter the kernel's reserved list.
 */
import { afterEach, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import process from "node:process";
import { isCovered, isPortFree, parsePortList, portHolders, reserveStackPorts, waitForPort } from "../../stack/ports.ts";

const RESERVED = "/proc/sys/net/ipv4/ip_local_reserved_ports";
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function listen(port = 0, onSocket: (socket: Socket) => void = () => {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on("error", () => {});
      onSocket(socket);
    });
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

async function freePort(): Promise<number> {
  const server = await listen();
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A perl process whose socket is bound to `localPort` and connected to `remotePort`. It closes first
 * after `seconds`; or, with "peer", reads until the server closes and then closes (no TIME_WAIT).
 */
async function connectionFrom(localPort: number, remotePort: number, closes: number | "after-peer"): Promise<ChildProcess> {
  const script = [
    "use Socket;",
    "socket(my $s, PF_INET, SOCK_STREAM, 0) or die qq(socket: $!);",
    `bind($s, sockaddr_in(${localPort}, inet_aton('127.0.0.1'))) or die qq(bind: $!);`,
    `connect($s, sockaddr_in(${remotePort}, inet_aton('127.0.0.1'))) or die qq(connect: $!);`,
    "$| = 1; print qq(connected\\n);",
    closes === "after-peer" ? "my $b; while (sysread($s, $b, 64)) {} close($s);" : `sleep ${closes}; close($s);`,
  ].join(" ");
  const child = spawn("perl", ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
  cleanups.push(() => {
    child.kill("SIGKILL");
  });
  await new Promise<void>((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (chunk) => (err += chunk));
    child.stdout!.on("data", (chunk) => String(chunk).includes("connected") && resolve());
    child.once("exit", (code) => reject(new Error(`perl exited (${code}) before connecting: ${err}`)));
  });
  return child;
}

test("a server listening on the port is refused at once, with its pid", async () => {
  const server = await listen();
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  const lines: string[] = [];
  const problem = await waitForPort(port, "emulators", { log: (line) => lines.push(line), waitMs: 10_000 });
  expect(problem).toContain(`port ${port} (emulators) is in use by another program: pid ${process.pid} (`);
  expect(problem).toContain(`127.0.0.1:${port} listening`);
  expect(problem).toContain(`ss -ltnp 'sport = :${port}'`);
  expect(lines).toEqual([]);
});

test("a connection's local end is named and waited for until it closes", async () => {
  const accepted: Socket[] = [];
  const target = await listen(0, (socket) => accepted.push(socket));
  cleanups.push(() => new Promise((resolve) => target.close(() => resolve())));
  const targetPort = (target.address() as { port: number }).port;
  const port = await freePort();
  const holder = await connectionFrom(port, targetPort, "after-peer");

  expect(await isPortFree(port)).toBe(false);
  expect(portHolders(port).map((h) => [h.state, h.pid, h.remote.port])).toContainEqual(["ESTABLISHED", holder.pid!, targetPort]);

  const lines: string[] = [];
  // The server ends the connection a second into the wait; perl then closes its end and exits.
  setTimeout(() => accepted.forEach((socket) => socket.end()), 1000);
  const problem = await waitForPort(port, "db", { log: (line) => lines.push(line), waitMs: 30_000, pollMs: 100 });
  expect(problem).toBeNull();
  expect(lines[0]).toContain(`port ${port} (db) is taken, but not by a server (pid ${holder.pid} (perl -e`);
  expect(lines[0]).toContain(`connected to 127.0.0.1:${targetPort}, ESTABLISHED`);
  expect(lines.at(-1)).toBe(`port ${port} (db) is free`);
  expect(await isPortFree(port)).toBe(true);
});

test("a connection closed from the port's side holds it in TIME_WAIT, which is named", async () => {
  const target = await listen();
  cleanups.push(() => new Promise((resolve) => target.close(() => resolve())));
  const targetPort = (target.address() as { port: number }).port;
  const port = await freePort();
  const holder = await connectionFrom(port, targetPort, 0);
  await new Promise((resolve) => holder.once("exit", resolve));
  // FIN_WAIT2 until the server's own FIN arrives, then TIME_WAIT.
  const states = () => portHolders(port).map((h) => [h.state, h.pid, h.remote.port]);
  for (let i = 0; i < 50 && !states().some(([state]) => state === "TIME_WAIT"); i++) await Bun.sleep(100);

  expect(await isPortFree(port)).toBe(false);
  expect(states()).toContainEqual(["TIME_WAIT", null, targetPort]);
  const problem = await waitForPort(port, "emulators", { log: () => {}, waitMs: 500, pollMs: 100 });
  expect(problem).toContain(
    `port ${port} (emulators) is still taken after 0.5 s, not by a server (127.0.0.1:${port} closed its connection to 127.0.0.1:${targetPort}, TIME_WAIT`,
  );
});

test("a connection that outlives the wait is refused with the sysctl that keeps it off the port", async () => {
  const target = await listen();
  cleanups.push(() => new Promise((resolve) => target.close(() => resolve())));
  const port = await freePort();
  const holder = await connectionFrom(port, (target.address() as { port: number }).port, "after-peer");
  const problem = await waitForPort(port, "edge", { log: () => {}, waitMs: 1000, pollMs: 100 });
  expect(problem).toContain(`port ${port} (edge) is still taken after 1 s, not by a server (pid ${holder.pid} (perl`);
  expect(problem).toContain(`sysctl -w net.ipv4.ip_local_reserved_ports=${port}`);
});

test("the stack's ports enter the kernel's reserved list once, next to what was there", async () => {
  const before = readFileSync(RESERVED, "utf8");
  const port = await freePort();
  const neighbour = await freePort();
  const reservation = reserveStackPorts([port, neighbour]);
  if (reservation.outcome === "unavailable") {
    // Not root, or /proc/sys read-only: the reason names the file, nothing was changed.
    expect(reservation.reason).toContain(RESERVED);
    expect(readFileSync(RESERVED, "utf8")).toBe(before);
    return;
  }
  cleanups.push(() => writeFileSync(RESERVED, before));
  expect(reservation.outcome).toBe("reserved");
  const after = parsePortList(readFileSync(RESERVED, "utf8"));
  expect(isCovered(after, port) && isCovered(after, neighbour)).toBe(true);
  for (const [low, high] of parsePortList(before)) expect(isCovered(after, low) && isCovered(after, high)).toBe(true);
  expect(reserveStackPorts([port]).outcome).toBe("already");
  // Reserved ports stay open to explicit binds: the stack's own servers.
  const server = await listen(port);
  await new Promise((resolve) => server.close(resolve));

  process.env.MDAME_RESERVE_PORTS = "0";
  try {
    expect(reserveStackPorts([await freePort()]).outcome).toBe("off");
  } finally {
    delete process.env.MDAME_RESERVE_PORTS;
  }
});
