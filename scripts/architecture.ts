/**
 * The one direction of imports (docs/reference/architecture.md): scripts -> cli -> stack -> functions and
 * workers -> shared, with emulators beside the runtime parts, and no import circle anywhere in
 * what ships. Tests may import anything; nothing imports a test.
 *
 *   bun scripts/architecture.ts     prints every wrong-way import and every circle; exits 1 on any
 *
 * Imports are read as text (static `import`/`export ... from`, side-effect imports, `import()`
 * with a literal), type-only ones included: a type that runs the wrong way couples the parts all
 * the same.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import process from "node:process";

/** The top-level folders that hold code, and the parts each may import besides itself. */
export const ALLOWED_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  functions: ["shared"],
  "gpu-worker": ["shared"],
  "render-runner": ["shared"],
  emulators: ["shared"],
  stack: ["functions", "gpu-worker", "render-runner", "shared"],
  cli: ["stack", "shared"],
  scripts: ["cli", "stack", "functions", "gpu-worker", "render-runner", "emulators", "shared"],
  tests: ["scripts", "cli", "stack", "functions", "gpu-worker", "render-runner", "emulators", "shared"],
};

const CODE = /\.(ts|mts|mjs|js)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".local", ".git", "out"]);
const IMPORT_PATTERNS = [
  /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm,
  /^\s*import\s*["']([^"']+)["']/gm,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
];

export interface WrongWayImport {
  from: string;
  to: string;
}

export interface ImportReport {
  files: number;
  wrongWay: WrongWayImport[];
  /** Each circle as its files, outside tests/. */
  circles: string[][];
}

function codeFiles(root: string, dir: string, out: string[]): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) codeFiles(root, path, out);
    } else if (CODE.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(path);
    }
  }
  return out;
}

/** The relative imports of one file's text, as the specifiers are written. */
export function importSpecifiers(text: string): string[] {
  const specifiers = new Set<string>();
  for (const pattern of IMPORT_PATTERNS) {
    for (const match of text.matchAll(pattern)) if (match[1]!.startsWith(".")) specifiers.add(match[1]!);
  }
  return [...specifiers];
}

const partOf = (file: string) => file.split("/")[0]!;

/** Reads every code file under the parts of `root` and checks each import against ALLOWED_IMPORTS. */
export function checkImports(root: string): ImportReport {
  const files = Object.keys(ALLOWED_IMPORTS).flatMap((part) => {
    try {
      return codeFiles(root, part, []);
    } catch {
      return [];
    }
  });
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const wrongWay: WrongWayImport[] = [];
  for (const file of files) {
    const edges: string[] = [];
    for (const specifier of importSpecifiers(readFileSync(join(root, file), "utf8"))) {
      const target = relative(root, resolve(root, dirname(file), specifier)).split(sep).join("/");
      const from = partOf(file);
      const to = partOf(target);
      if (from !== to && !(ALLOWED_IMPORTS[from] ?? []).includes(to)) wrongWay.push({ from: file, to: target });
      if (known.has(target)) edges.push(target);
    }
    graph.set(file, edges);
  }
  const shipped = new Map([...graph].filter(([file]) => partOf(file) !== "tests"));
  return { files: files.length, wrongWay, circles: circlesOf(shipped) };
}

/** Strongly connected components of more than one file (Tarjan), each sorted. */
function circlesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

if (import.meta.main) {
  const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
  const report = checkImports(root);
  for (const { from, to } of report.wrongWay) console.log(`wrong way: ${from} -> ${to}`);
  for (const circle of report.circles) console.log(`circle: ${circle.join(" -> ")}`);
  console.log(`files=${report.files} wrong_way=${report.wrongWay.length} circles=${report.circles.length}`);
  process.exit(report.wrongWay.length + report.circles.length === 0 ? 0 : 1);
}
