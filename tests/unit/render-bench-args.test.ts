import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { keptBlocks, replaceBlock } from "../../scripts/bench/doc-blocks.ts";
import { parseBenchArgs, replaceSection } from "../../scripts/bench/render-throughput.ts";
import { BENCHMARKS_DOC } from "../../scripts/docs/doc-paths.ts";

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

  test("a block another command owns, right after the section, is kept with its markers", () => {
    const doc = "## Render throughput\n\nold\n\n<!-- alignment:start -->\n## Word alignment\n\nw\n<!-- alignment:end -->\n";
    const out = replaceSection(doc, ["## Render throughput", "", "new"]);
    expect(out).toBe("## Render throughput\n\nnew\n\n<!-- alignment:start -->\n## Word alignment\n\nw\n<!-- alignment:end -->\n");
  });

  test("docs/reports/benchmarks.md keeps every owned block through the render bench's --write and npm run bench", () => {
    const doc = readFileSync(BENCHMARKS_DOC, "utf8");
    const blocks = keptBlocks(doc);
    // The document's own blocks, whichever commands wrote them: each name once.
    const names = blocks.map((b) => /<!-- ([a-z-]+):start -->/.exec(b)![1]);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    expect(keptBlocks(replaceSection(doc, ["## Render throughput", "", "new"]))).toEqual(blocks);
  });

  test("a document without the section gets it appended", () => {
    expect(replaceSection("# Benchmarks\n", ["## Render throughput", "", "new"])).toBe("# Benchmarks\n\n## Render throughput\n\nnew\n");
  });
});

describe("owned blocks", () => {
  const block = (text: string) => `<!-- alignment:start -->\n${text}\n<!-- alignment:end -->\n`;

  test("a block is replaced in place, what is around it kept", () => {
    const doc = `# B\n\n${block("old")}\n## After\n`;
    expect(replaceBlock(doc, "alignment", block("new"))).toBe(`# B\n\n${block("new")}\n## After\n`);
  });

  test("a missing block is appended; a replacement's $ signs are taken literally", () => {
    expect(replaceBlock("# B\n", "alignment", block("costs $1 and $&"))).toBe(`# B\n\n${block("costs $1 and $&")}`);
    expect(replaceBlock(block("x"), "alignment", block("$&"))).toBe(block("$&"));
  });

  test("only blocks with both markers of the same name are kept", () => {
    expect(keptBlocks(`${block("a")}<!-- other:start -->\nno end\n`)).toEqual([block("a").trimEnd()]);
  });
});
