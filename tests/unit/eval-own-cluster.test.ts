import { describe, expect, test } from "bun:test";
import { dbChoice, ownClusterEnv } from "../../scripts/eval/own-cluster.ts";

describe("evals on a cluster of their own", () => {
  test("--db own is the default; --db shared takes the clone's cluster; the flag leaves the other arguments", () => {
    expect(dbChoice(["--corpus", "c.jsonl"])).toEqual({ db: "own", rest: ["--corpus", "c.jsonl"] });
    expect(dbChoice(["--corpus", "c.jsonl", "--db", "shared", "--limit", "3"])).toEqual({ db: "shared", rest: ["--corpus", "c.jsonl", "--limit", "3"] });
    expect(dbChoice(["--db", "own"])).toEqual({ db: "own", rest: [] });
  });

  test("a bad --db value is refused, naming both choices", () => {
    expect(dbChoice(["--db", "lane-a"])).toBe("--db takes own (a cluster of the eval's own, the default) or shared (the clone's), not lane-a");
    expect(dbChoice(["--db"])).toMatch(/not nothing$/);
  });

  test("its state and ports are apart from the clone's stack and the test pool's stacks", () => {
    const env = ownClusterEnv("/clone");
    expect(env.MDAME_LOCAL_DIR).toBe("/clone/.local/eval");
    const ports = [env.MDAME_DB_PORT, env.MDAME_EDGE_PORT, env.MDAME_EMULATOR_PORT].map(Number);
    // The clone's stack and the pool's stacks B and C sit at +0, +1100 and +2200.
    for (const offset of [0, 1100, 2200]) for (const port of [54321, 54322, 54330]) expect(ports).not.toContain(port + offset);
  });
});
