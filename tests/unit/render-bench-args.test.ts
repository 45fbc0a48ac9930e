import { describe, expect, test } from "bun:test";
import { parseBenchArgs, replaceSection } from "../../scripts/bench/render-throughput.ts";

describe("render throughput bench command line", () => {
  test("defaults: FFmpeg's own threads, five rounds, nothing written", () => {
    expect(parseBenchArgs([])).toEqual({ threads: undefined, repeats: 5, write: false });
  });

  test("threads, rounds and --write are read", () => {
    expect(parseBenchArgs(["--threads", "2", "--repeats=5", "--write"])).toEqual({ threads: 2, repeats: 5, write: true });
  });

  test("a count that is not a whole number of at least 1, an unknown option or a stray word is refused with the usage", () => {
    for (const argv of [["--repeats", "0"], ["--threads", "1.5"], ["--repeats", "x"], ["--fast"], ["render"]]) {
      expect(() => parseBenchArgs(argv)).toThrow(/usage: bun scripts\/bench\/render-throughput\.ts/);
    }
    expect(() => parseBenchArgs(["--repeats", "0"])).toThrow('--repeats must be a whole number of at least 1, not "0"');
  });
});

describe("benchmarks document", () => {
  test("the render section is replaced in place, the sections around it kept", () => {
    const doc = "# Benchmarks\n\n## Queue\n\nq\n\n## Render throughput\n\nold\nfigures\n\n## Word alignment\n\nw\n";
    const out = replaceSection(doc, ["## Render throughput", "", "new"]);
    expect(out).toBe("# Benchmarks\n\n## Queue\n\nq\n\n## Render throughput\n\nnew\n\n## Word alignment\n\nw\n");
  });

  test("a document without the section gets it appended", () => {
    expect(replaceSection("# Benchmarks\n", ["## Render throughput", "", "new"])).toBe("# Benchmarks\n\n## Render throughput\n\nnew\n");
  });
});
