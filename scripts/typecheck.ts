/**
 * `npm run typecheck`: both type checkers and the formatter's check, zero errors expected.
 *   - `deno check` on what runs on Deno: the Edge Functions (functions/) and the two Deno
 *     scripts, with deno.json's import map resolving npm: specifiers to node_modules.
 *   - `tsc --noEmit` with Bun's types (tsconfig.json) on everything else: shared/, the workers,
 *     scripts/, emulators/, tests/.
 *   - `deno fmt --check`: every TypeScript file as `deno fmt` writes it (deno.json's `fmt`: line
 *     width 160, double quotes, semicolons); `npm run fmt` rewrites them.
 * Exits non-zero when either reports an error.
 *
 *   bun scripts/typecheck.ts
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { paths } from "../stack/paths.ts";

/** Files that run on Deno outside functions/; tsconfig.json excludes them for the same reason. */
export const DENO_SCRIPTS = [
  "stack/edge-host.ts",
  "stack/edge-worker.ts",
  "tests/fixtures/edge-limit-functions.ts",
  "tests/integration/fixtures/edge-tts-deno.ts",
] as const;

export interface TypeCheck {
  name: string;
  argv: string[];
}

export function typeChecks(root: string = paths.root): TypeCheck[] {
  const bin = (name: string) => join(root, "node_modules", ".bin", name);
  return [
    { name: "deno check (functions/, Deno scripts)", argv: [bin("deno"), "check", "--quiet", "functions/", ...DENO_SCRIPTS] },
    { name: "tsc --noEmit (Bun side)", argv: [bin("tsc"), "--noEmit", "-p", "tsconfig.json", "--pretty", "false"] },
    { name: "deno fmt --check (deno.json's fmt)", argv: [bin("deno"), "fmt", "--check", "--quiet"] },
  ];
}

export interface TypeCheckResult {
  name: string;
  ok: boolean;
  errors: number;
  output: string;
}

/**
 * Error diagnostics in a checker's output: tsc prints `file(l,c): error TSnnnn`, deno check
 * prints `TSnnnn [ERROR]` (colour codes stripped first).
 */
export function countTypeErrors(output: string): number {
  // deno colours its output even when piped; the codes would split the markers.
  const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
  return (plain.match(/: error TS\d+|\bTS\d+ \[ERROR\]/g) ?? []).length;
}

export function runTypeCheck(check: TypeCheck, root: string = paths.root, echo = true): Promise<TypeCheckResult> {
  return new Promise((resolve) => {
    const child = spawn(check.argv[0]!, check.argv.slice(1), { cwd: root, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Buffer, to: NodeJS.WriteStream) => {
      output += chunk;
      if (echo) to.write(chunk);
    };
    child.stdout!.on("data", (chunk: Buffer) => collect(chunk, process.stdout));
    child.stderr!.on("data", (chunk: Buffer) => collect(chunk, process.stderr));
    child.on("error", (error) => resolve({ name: check.name, ok: false, errors: 1, output: `${output}\n${error.message}\n` }));
    child.on("close", (code) => {
      const errors = countTypeErrors(output);
      // A checker that failed without a countable diagnostic (bad config, crash) is still one failure.
      resolve({ name: check.name, ok: code === 0, errors: code === 0 ? errors : Math.max(1, errors), output });
    });
  });
}

/**
 * Every type check, one after the other: each clean checker counts as one passed test, each error
 * it reports as one failed test. The output has a line before and after each checker's own; with
 * `echo` it is printed as it comes, else only kept.
 */
export async function runTypeChecks(echo: boolean, root: string = paths.root): Promise<{ passed: number; failed: number; output: string }> {
  const counts = { passed: 0, failed: 0 };
  let output = "";
  const line = (text: string) => {
    output += `${text}\n`;
    if (echo) console.log(text);
  };
  for (const check of typeChecks(root)) {
    line(`-- ${check.name}`);
    const result = await runTypeCheck(check, root, echo);
    if (!echo) output += result.output && !result.output.endsWith("\n") ? `${result.output}\n` : result.output;
    if (result.ok) counts.passed += 1;
    else counts.failed += result.errors;
    line(`-- ${check.name}: ${result.ok ? "no errors" : `${result.errors} error(s)`}`);
  }
  return { ...counts, output };
}

async function main(): Promise<number> {
  const { failed } = await runTypeChecks(true);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) {
  main().then((code) => process.exit(code));
}
