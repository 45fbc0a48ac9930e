/**
 * The direction of imports (docs/reference/architecture.md, scripts/architecture.ts): the tree holds it, and
 * the check sees a wrong-way import or a circle planted in a tree of its own.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ALLOWED_IMPORTS, checkImports, importSpecifiers } from "../../scripts/architecture.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

describe("the project's imports", () => {
  test("run one way: no part imports a part above it, and nothing that ships sits in a circle", () => {
    const report = checkImports(ROOT);
    expect(report.files).toBeGreaterThan(300);
    expect(report.wrongWay).toEqual([]);
    expect(report.circles).toEqual([]);
  });

  test("shared/ imports no other part, and no runtime part imports cli/, stack/, scripts/, emulators/ or tests/", () => {
    expect(ALLOWED_IMPORTS.shared).toEqual([]);
    for (const runtime of ["functions", "gpu-worker", "render-runner"]) {
      for (const above of ["cli", "stack", "scripts", "emulators", "tests"]) expect(ALLOWED_IMPORTS[runtime]).not.toContain(above);
    }
  });
});

describe("checkImports on a planted tree", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  function tree(files: Record<string, string>): string {
    root = mkdtempSync(join(tmpdir(), "mdame-imports-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, dirname(path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  }

  const clean = {
    "shared/hashing.ts": "export const h = 1;\n",
    "functions/pipeline/app.ts": 'import { h } from "../../shared/hashing.ts";\nexport const a = h;\n',
    "stack/edge-host.ts": 'import { a } from "../functions/pipeline/app.ts";\nexport const e = a;\n',
    "cli/main.ts": 'import { e } from "../stack/edge-host.ts";\nexport const m = e;\n',
    "scripts/demo.ts": 'import { m } from "../cli/main.ts";\nconsole.log(m);\n',
  };

  test("a tree whose imports run one way passes", () => {
    const report = checkImports(tree(clean));
    expect(report).toEqual({ files: 5, wrongWay: [], circles: [] });
  });

  test("a runtime part importing scripts/ is reported, type-only imports included", () => {
    const report = checkImports(tree({
      ...clean,
      "scripts/bench.ts": "export type Figures = { ms: number };\n",
      "functions/pipeline/app.ts":
        'import { h } from "../../shared/hashing.ts";\nimport type { Figures } from "../../scripts/bench.ts";\nexport const a: Figures | number = h;\n',
    }));
    expect(report.wrongWay).toEqual([{ from: "functions/pipeline/app.ts", to: "scripts/bench.ts" }]);
  });

  test("shared/ importing a runtime part, and stack/ importing cli/, are reported", () => {
    const report = checkImports(tree({
      ...clean,
      "shared/hashing.ts": 'export { e } from "../stack/edge-host.ts";\nexport const h = 1;\n',
      "stack/edge-host.ts": 'import { a } from "../functions/pipeline/app.ts";\nconst cli = await import("../cli/main.ts");\nexport const e = [a, cli];\n',
    }));
    expect(report.wrongWay).toEqual([
      { from: "shared/hashing.ts", to: "stack/edge-host.ts" },
      { from: "stack/edge-host.ts", to: "cli/main.ts" },
    ]);
  });

  test("a circle inside one part is reported with its files", () => {
    const report = checkImports(tree({
      ...clean,
      "functions/pipeline/stage-runner.ts": 'import { run } from "./stages/script.ts";\nexport type Msg = { id: number };\nexport const r = run;\n',
      "functions/pipeline/stages/script.ts": 'import type { Msg } from "../stage-runner.ts";\nexport const run = (m: Msg) => m.id;\n',
    }));
    expect(report.wrongWay).toEqual([]);
    expect(report.circles).toEqual([["functions/pipeline/stage-runner.ts", "functions/pipeline/stages/script.ts"]]);
  });
});

describe("importSpecifiers", () => {
  test("reads multi-line, type-only, re-export, side-effect and literal dynamic imports; not comments or bare packages", () => {
    const text = [
      "/**",
      ' * Example: import { x } from "./in-a-comment.ts";',
      " */",
      'import { z } from "zod";',
      "import {",
      "  a,",
      "  type B,",
      '} from "./multi.ts";',
      'import type { C } from "../types.ts";',
      'export { d } from "./re-export.ts";',
      'import "./side-effect.ts";',
      'const lazy = await import("./lazy.ts");',
    ].join("\n");
    expect(importSpecifiers(text).sort()).toEqual(["../types.ts", "./lazy.ts", "./multi.ts", "./re-export.ts", "./side-effect.ts"]);
  });
});
