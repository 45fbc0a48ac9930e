/**
 * The repository stands on its own (docs/conventions.md, "Names and comments"): every path a file
 * names from the repository's root exists, every relative Markdown link lands on a file, and no
 * reference climbs out of the repository. Landed migrations are history and are not rewritten;
 * test fixtures are data.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { Glob } from "bun";
import { paths } from "../../stack/paths.ts";

const ROOT = paths.root;
const TOP_LEVEL = ["docs", "scripts", "shared", "functions", "cli", "stack", "tests", "supabase", "emulators", "gpu-worker", "render-runner"];
const TEXT = /\.(md|ts|mjs|sql|toml|json|ya?ml|sh)$|^\.ci\/|(^|\/)\.env\.example$/;
const SKIPPED = /^(supabase\/migrations|tests\/fixtures|node_modules)\//;

/** Paths named on purpose although they do not exist in a clone, each with its reason. */
const ABSENT_ON_PURPOSE: Record<string, string> = {
  "supabase/functions": "where `supabase functions deploy` would look without the config.toml entrypoints",
  "supabase/.temp": "the Supabase CLI's own folder, ignored by git",
  "supabase/migrations/2999": "an example of a broken migration's name in an error message",
};

/**
 * A path from the root: one of the top-level folders, then path characters; braces are groups,
 * `*` and `<placeholder>` match any name (`supabase/schemas/mdame/functions/record_<stage>.sql`).
 */
const ROOTED = new RegExp(String.raw`(?<![\w./@$-])((?:${TOP_LEVEL.join("|")})/[\w./{},*<>-]*[\w/}*>])`, "g");
/** Climbing paths that are input, not references, each with its reason. */
const CLIMBS_ON_PURPOSE: Record<string, string> = {
  "../../../../etc/passwd": "a path-traversal attempt the worker callback must refuse (tests/integration/worker-callback-hostile-input.test.ts)",
};
const MARKDOWN_LINK = /\]\(([^)\s]+)\)/g;
const CLIMBING = /(?<![\w./-])((?:\.\.\/)+[\w.-][\w./-]*)/g;

function repositoryFiles(): string[] {
  const listed = spawnSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout.split("\n").filter((file) =>
    file && TEXT.test(file) && !SKIPPED.test(file) && existsSync(join(ROOT, file)) && !lstatSync(join(ROOT, file)).isSymbolicLink()
  );
}

/** `a/{b,c}.ts` -> `a/b.ts`, `a/c.ts` (the shell's brace expansion, as the docs write groups of files). */
export function expandBraces(path: string): string[] {
  const group = /\{([^{}]*)\}/.exec(path);
  if (!group) return [path];
  return group[1]!.split(",").flatMap((alt) => expandBraces(path.slice(0, group.index) + alt.trim() + path.slice(group.index + group[0].length)));
}

/** A brace group wrapped over lines (in prose or a comment block) joined back onto one line. */
export function joinWrappedBraces(text: string): string {
  let joined = text;
  for (;;) {
    const next = joined.replace(/(\{[^{}\n]*,)\n[ \t]*(?:\* |\/\/ |-- |# )?/g, "$1");
    if (next === joined) return joined;
    joined = next;
  }
}

function rootedPathExists(path: string): boolean {
  const clean = path.replace(/[/.,]+$/, "").replace(/<[^<>/]*>/g, "*");
  if (Object.keys(ABSENT_ON_PURPOSE).some((absent) => clean === absent || clean.startsWith(`${absent}/`))) return true;
  if (clean.includes("*")) return Array.from(new Glob(clean).scanSync({ cwd: ROOT, onlyFiles: false })).length > 0;
  return existsSync(join(ROOT, clean));
}

function insideRepository(path: string): boolean {
  const rel = relative(ROOT, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== "..");
}

interface Finding {
  file: string;
  reference: string;
  problem: string;
}

function findings(): Finding[] {
  const found: Finding[] = [];
  for (const file of repositoryFiles()) {
    const text = joinWrappedBraces(readFileSync(join(ROOT, file), "utf8"));
    for (const match of text.matchAll(ROOTED)) {
      for (const path of expandBraces(match[1]!.replace(/\s+/g, ""))) {
        if (!rootedPathExists(path)) found.push({ file, reference: path, problem: "no such file or folder in the repository" });
      }
    }
    for (const match of text.matchAll(CLIMBING)) {
      const target = resolve(ROOT, dirname(file), match[1]!);
      if (!insideRepository(target) && !(match[1]! in CLIMBS_ON_PURPOSE)) found.push({ file, reference: match[1]!, problem: "points outside the repository" });
    }
    if (file.endsWith(".md")) {
      for (const match of text.matchAll(MARKDOWN_LINK)) {
        const link = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith("#")) continue;
        const target = resolve(ROOT, dirname(file), link.split("#")[0]!);
        if (!insideRepository(target)) found.push({ file, reference: link, problem: "links outside the repository" });
        else if (!existsSync(target)) found.push({ file, reference: link, problem: "links to a file that does not exist" });
      }
    }
  }
  return found;
}

describe("references between the repository's files", () => {
  test("brace groups expand as the shell does", () => {
    expect(expandBraces("tests/integration/publish-{deferral,refusals}.test.ts")).toEqual([
      "tests/integration/publish-deferral.test.ts",
      "tests/integration/publish-refusals.test.ts",
    ]);
    expect(expandBraces("a/{b,c}/{d,e}")).toEqual(["a/b/d", "a/b/e", "a/c/d", "a/c/e"]);
    expect(joinWrappedBraces("see `x/{a,b,\n * c}.ts` and {d,\ne}")).toBe("see `x/{a,b,c}.ts` and {d,e}");
  });

  test("a missing path, a link out and a climb out of the repository are each found", () => {
    // Built from parts, so this file names no missing path itself.
    const docs = "docs";
    expect(rootedPathExists(`${docs}/no-such-page.md`)).toBe(false);
    expect(rootedPathExists("docs/design.md")).toBe(true);
    expect(rootedPathExists("supabase/schemas/mdame/functions/ops_*.sql")).toBe(true);
    expect(rootedPathExists(`${docs}/no_such_*.md`)).toBe(false);
    expect(rootedPathExists("supabase/schemas/mdame/functions/record_<stage>.sql")).toBe(true);
    expect(rootedPathExists(`${docs}/no_such_<page>.md`)).toBe(false);
    expect(insideRepository(resolve(ROOT, "..", "elsewhere", "notes.md"))).toBe(false);
    expect(insideRepository(resolve(ROOT, "docs/guides", "../reports/benchmarks.md"))).toBe(true);
  });

  test("every path a file names exists, and nothing points outside the repository", () => {
    const list = findings().map((f) => `${f.file}: ${f.reference} (${f.problem})`);
    expect(list).toEqual([]);
  });
});
