/**
 * The local stack's port helpers (stack/ports.ts): the kernel's reserved-port list read and
 * written back, and /proc/net/tcp{,6} decoded to name what holds a port.
 */
import { describe, expect, test } from "bun:test";
import { decodeAddress, describeHolders, formatPortList, isCovered, parsePortList, parseProcNetTcp } from "../../stack/ports.ts";

describe("reserved port list", () => {
  test("reads single ports and ranges, empty when nothing is reserved", () => {
    expect(parsePortList("")).toEqual([]);
    expect(parsePortList("\n")).toEqual([]);
    expect(parsePortList("8080,54321-54322,54330\n")).toEqual([[8080, 8080], [54321, 54322], [54330, 54330]]);
  });

  test("refuses what it cannot read instead of dropping it", () => {
    expect(() => parsePortList("54321,abc")).toThrow('unreadable port list item "abc"');
  });

  test("writes back merged, sorted ranges", () => {
    expect(formatPortList([[54330, 54330], [54321, 54321], [54322, 54322]])).toBe("54321-54322,54330");
    expect(formatPortList([[100, 200], [150, 300], [301, 301], [8080, 8080]])).toBe("100-301,8080");
    expect(formatPortList([])).toBe("");
  });

  test("a port is covered by a range that contains it", () => {
    const ranges = parsePortList("54321-54322,8080");
    expect(isCovered(ranges, 54321)).toBe(true);
    expect(isCovered(ranges, 54322)).toBe(true);
    expect(isCovered(ranges, 8080)).toBe(true);
    expect(isCovered(ranges, 54330)).toBe(false);
  });
});

describe("/proc/net/tcp", () => {
  test("decodes IPv4 and IPv6 addresses written word by word in host byte order", () => {
    expect(decodeAddress("0100007F:D43A")).toEqual({ address: "127.0.0.1", port: 54330 });
    expect(decodeAddress("00000000:0000")).toEqual({ address: "0.0.0.0", port: 0 });
    expect(decodeAddress("00000000000000000000000001000000:D432")).toEqual({ address: "::1", port: 54322 });
    expect(decodeAddress("00000000000000000000000000000000:1F90")).toEqual({ address: "::", port: 8080 });
  });

  test("reads state, both ends and the inode of each socket", () => {
    const text = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 0100007F:D43A 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 581 1 0000000000000000 100 0 0 10 0",
      "   1: 0100007F:D43A 0100007F:D432 01 00000000:00000000 00:00000000 00000000     0        0 9921 1 0000000000000000 20 4 30 10 -1",
      "   2: 0100007F:D43A 0100007F:D431 06 00000000:00000000 03:00000C5C 00000000     0        0 0 3 0000000000000000",
      "",
    ].join("\n");
    const sockets = parseProcNetTcp(text);
    expect(sockets.map((s) => s.state)).toEqual(["LISTEN", "ESTABLISHED", "TIME_WAIT"]);
    expect(sockets[1]).toEqual({
      local: { address: "127.0.0.1", port: 54330 },
      remote: { address: "127.0.0.1", port: 54322 },
      state: "ESTABLISHED",
      inode: 9921,
    });
  });

  test("names the holder, or says none is visible", () => {
    const line = describeHolders([{
      local: { address: "127.0.0.1", port: 54330 },
      remote: { address: "127.0.0.1", port: 54322 },
      state: "ESTABLISHED",
      inode: 1,
      pid: 42,
      command: "bun test",
    }]);
    expect(line).toBe("pid 42 (bun test): 127.0.0.1:54330 connected to 127.0.0.1:54322, ESTABLISHED");
    expect(describeHolders([])).toContain("no server or connection on it");
  });
});
