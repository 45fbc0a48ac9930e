/**
 * The local stack's fixed ports against the kernel's ephemeral range.
 *
 * Supabase's ports (54321, 54322, ...) lie inside Linux's default ephemeral range (32768-60999),
 * so any outgoing connection on the machine may be given one as its local port. While that
 * connection lives, a server cannot bind the port: a stack restarted at that moment would refuse
 * to start. Listing the ports in `net.ipv4.ip_local_reserved_ports` keeps the kernel from handing
 * them out; explicit binds (the stack's own servers) still work. As root the stack reserves them
 * itself (unless MDAME_RESERVE_PORTS=0); otherwise it names the command to run.
 *
 * When a port is busy anyway, /proc/net/tcp{,6} tells a server listening on it (another program:
 * refuse) from the local end of a connection, live or in TIME_WAIT (it frees when that closes, or
 * TIME_WAIT ends); /proc/<pid>/fd names the process, once there is something to say.
 */
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import process from "node:process";
import { LOCAL_STACK } from "../shared/config/local-stack.ts";

const RESERVED_PORTS_FILE = "/proc/sys/net/ipv4/ip_local_reserved_ports";

/** The ports the stack's servers listen on. */
export function stackPorts(): number[] {
  return [...new Set([LOCAL_STACK.edgePort, LOCAL_STACK.dbPort, LOCAL_STACK.emulatorPort])].sort((a, b) => a - b);
}

/** Parses the kernel's list ("54321-54322,54330" or empty) into closed ranges. */
export function parsePortList(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const part of text.trim().split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const match = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (!match) throw new Error(`unreadable port list item "${item}" in "${text.trim()}"`);
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    ranges.push([Math.min(low, high), Math.max(low, high)]);
  }
  return ranges;
}

/** Formats ranges back into the kernel's syntax, merging overlapping and adjacent ones. */
export function formatPortList(ranges: [number, number][]): string {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [low, high] of sorted) {
    const last = merged.at(-1);
    if (last && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else merged.push([low, high]);
  }
  return merged.map(([low, high]) => (low === high ? String(low) : `${low}-${high}`)).join(",");
}

export function isCovered(ranges: [number, number][], port: number): boolean {
  return ranges.some(([low, high]) => port >= low && port <= high);
}

const reserveCommand = (ports: number[]) =>
  `sysctl -w net.ipv4.ip_local_reserved_ports=${formatPortList(ports.map((p) => [p, p]))} (as root; add the ports to any list already there)`;

export type Reservation =
  | { outcome: "already" | "off"; ports: number[] }
  | { outcome: "reserved"; ports: number[]; list: string }
  | { outcome: "unavailable"; ports: number[]; reason: string };

/**
 * Makes sure the kernel never gives `ports` to an outgoing connection. Adds them to the reserved
 * list when this process may write it, and tells `log` what it did or why it could not (nothing
 * when they were reserved already); never throws (the stack runs without, only less surely).
 */
export function reserveStackPorts(ports: number[], log?: (line: string) => void): Reservation {
  const reservation = reserve(ports);
  const line = describeReservation(reservation);
  if (line) log?.(line);
  return reservation;
}

function reserve(ports: number[]): Reservation {
  if (process.env.MDAME_RESERVE_PORTS === "0") return { outcome: "off", ports };
  let current: [number, number][];
  try {
    current = parsePortList(readFileSync(RESERVED_PORTS_FILE, "utf8"));
  } catch (error) {
    return { outcome: "unavailable", ports, reason: `cannot read ${RESERVED_PORTS_FILE}: ${(error as Error).message}` };
  }
  const missing = ports.filter((port) => !isCovered(current, port));
  if (missing.length === 0) return { outcome: "already", ports };
  const list = formatPortList([...current, ...missing.map((p): [number, number] => [p, p])]);
  try {
    writeFileSync(RESERVED_PORTS_FILE, `${list}\n`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { outcome: "unavailable", ports: missing, reason: `${RESERVED_PORTS_FILE} is not writable here (${code})` };
  }
  return { outcome: "reserved", ports: missing, list };
}

/** One line for the log about a reservation, or null when there is nothing to say. */
function describeReservation(reservation: Reservation): string | null {
  switch (reservation.outcome) {
    case "already":
    case "off":
      return null;
    case "reserved":
      return `reserved port(s) ${
        reservation.ports.join(", ")
      } from the kernel's ephemeral range (net.ipv4.ip_local_reserved_ports=${reservation.list}), so no outgoing connection can take them`;
    case "unavailable":
      return `port(s) ${
        reservation.ports.join(", ")
      } stay in the kernel's ephemeral range (${reservation.reason}); an outgoing connection may take one and block a restart. To prevent it: ${
        reserveCommand(reservation.ports)
      }`;
  }
}

const TCP_STATES: Record<string, string> = {
  "01": "ESTABLISHED",
  "02": "SYN_SENT",
  "03": "SYN_RECV",
  "04": "FIN_WAIT1",
  "05": "FIN_WAIT2",
  "06": "TIME_WAIT",
  "07": "CLOSE",
  "08": "CLOSE_WAIT",
  "09": "LAST_ACK",
  "0A": "LISTEN",
  "0B": "CLOSING",
  "0C": "NEW_SYN_RECV",
};

interface TcpSocket {
  local: { address: string; port: number };
  remote: { address: string; port: number };
  state: string;
  inode: number;
}

/** Decodes /proc/net/tcp's hex address ("0100007F:D43A", or 32 hex digits for tcp6). */
export function decodeAddress(hex: string): { address: string; port: number } {
  const [ip = "", port = ""] = hex.split(":");
  // Each 32-bit word is in the host's (little-endian) byte order.
  const bytes: number[] = [];
  for (let word = 0; word < ip.length; word += 8) {
    const chunk = ip.slice(word, word + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(parseInt(chunk.slice(b, b + 2), 16));
  }
  let address: string;
  if (bytes.length === 4) address = bytes.join(".");
  else {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
    address = groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
  }
  return { address, port: parseInt(port, 16) };
}

/** Parses the text of /proc/net/tcp or /proc/net/tcp6. */
export function parseProcNetTcp(text: string): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const line of text.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    sockets.push({
      local: decodeAddress(fields[1]!),
      remote: decodeAddress(fields[2]!),
      state: TCP_STATES[fields[3]!.toUpperCase()] ?? fields[3]!,
      inode: Number(fields[9]),
    });
  }
  return sockets;
}

interface PortHolder extends TcpSocket {
  pid: number | null;
  command: string | null;
}

/** The processes owning each socket inode (only processes this user may look into). */
function socketOwners(inodes: Set<number>): Map<number, { pid: number; command: string }> {
  const owners = new Map<number, { pid: number; command: string }>();
  if (inodes.size === 0) return owners;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (!match || !inodes.has(Number(match[1])) || owners.has(Number(match[1]))) continue;
      let command = "?";
      try {
        command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ").slice(0, 120);
      } catch {
        // The process ended meanwhile.
      }
      owners.set(Number(match[1]), { pid: Number(entry), command });
    }
  }
  return owners;
}

/**
 * The TCP sockets whose local end is `port`. TIME_WAIT counts: a connection from a socket bound
 * without SO_REUSEADDR (every kernel-chosen ephemeral port) that closed first keeps the port from
 * any server for up to 60 s after it closed.
 */
function portSockets(port: number): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    try {
      sockets.push(...parseProcNetTcp(readFileSync(file, "utf8")));
    } catch {
      // No IPv6, or no /proc: nothing to report from it.
    }
  }
  return sockets.filter((s) => s.local.port === port);
}

/** The sockets with the process owning each (a scan of every process's descriptors). */
function withOwners(sockets: TcpSocket[]): PortHolder[] {
  const owners = socketOwners(new Set(sockets.map((s) => s.inode).filter((inode) => inode > 0)));
  return sockets.map((s) => ({ ...s, pid: owners.get(s.inode)?.pid ?? null, command: owners.get(s.inode)?.command ?? null }));
}

/** The TCP sockets whose local end is `port`, each with its process when this user may see it. */
export function portHolders(port: number): PortHolder[] {
  return withOwners(portSockets(port));
}

/** True when some program listens on the port (as opposed to a connection merely using it). */
const isListened = (sockets: TcpSocket[]) => sockets.some((s) => s.state === "LISTEN");

/**
 * "pid 123 (bun test): 127.0.0.1:54330 connected to 127.0.0.1:54322, ESTABLISHED", one clause per
 * holder, joined by "; ".
 */
export function describeHolders(holders: PortHolder[]): string {
  if (holders.length === 0) return "no server or connection on it in /proc/net/tcp: a socket bound without listening, or one of another network namespace";
  return holders.map((h) => {
    if (h.state === "TIME_WAIT") {
      return `${h.local.address}:${h.local.port} closed its connection to ${h.remote.address}:${h.remote.port}, TIME_WAIT (the kernel keeps it up to 60 s)`;
    }
    const who = h.pid === null ? "a process not visible to this user" : `pid ${h.pid} (${h.command})`;
    const peer = h.state === "LISTEN" ? "listening" : `connected to ${h.remote.address}:${h.remote.port}, ${h.state}`;
    return `${who}: ${h.local.address}:${h.local.port} ${peer}`;
  }).join("; ");
}

/** True when a server could listen on host:port now. */
export function isPortFree(port: number, host: string = LOCAL_STACK.host): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** How long a port held by a connection (not a server) is waited for: TIME_WAIT's 60 s, and some. */
const PORT_WAIT_MS = 90_000;

/**
 * Waits until `port` can be listened on. A server on it is another program: refused at once. The
 * local end of a connection frees when that connection closes: waited for up to `waitMs`. Returns
 * null once free, else why not (one sentence naming the holder and what to do).
 */
export async function waitForPort(
  port: number,
  name: string,
  options: { log: (line: string) => void; waitMs?: number; pollMs?: number },
): Promise<string | null> {
  const waitMs = options.waitMs ?? PORT_WAIT_MS;
  const deadline = Date.now() + waitMs;
  let announced = false;
  while (!(await isPortFree(port))) {
    // Only /proc/net/tcp on every poll; the scan for the owning processes only for a message.
    const sockets = portSockets(port);
    const holders = () => describeHolders(withOwners(sockets));
    if (isListened(sockets)) {
      return `port ${port} (${name}) is in use by another program: ${holders()}; find it with: ss -ltnp 'sport = :${port}'`;
    }
    if (Date.now() >= deadline) {
      return `port ${port} (${name}) is still taken after ${waitMs / 1000} s, not by a server (${holders()}); ` +
        `a connection's local end frees when the connection closes. To keep outgoing connections off the port: ${reserveCommand([port])}`;
    }
    if (!announced) {
      options.log(
        `port ${port} (${name}) is taken, but not by a server (${holders()}): the kernel may have given it to a connection from its ephemeral range; waiting up to ${
          waitMs / 1000
        } s for it to be released`,
      );
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
  }
  if (announced) options.log(`port ${port} (${name}) is free`);
  return null;
}
