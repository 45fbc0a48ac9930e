/**
 * `npm run deploy:check`: what `supabase functions deploy` would refuse or what would break once
 * deployed, found before deploying. For each Edge Function (functions/<name>/index.ts):
 *   - bundles it with deno.json as the import map and prints the bundle's size against
 *     Supabase's 20 MB limit (bundles land in dist/functions/);
 *   - checks the function's own modules against what the Edge Runtime lacks (subprocesses, FFI,
 *     workers, Bun, writes outside /tmp, listeners besides Deno.serve in index.ts);
 *   - checks that index.ts serves a handler with Deno.serve;
 *   - checks that supabase/config.toml declares it with this entrypoint and deno.json as import map
 *     (skipped with --functions-dir, which checks functions that are not the project's).
 * Exits 1 naming file:line for each problem; 0 when every function passes.
 *
 *   bun scripts/deploy-check.ts [--functions-dir <dir>] [--out-dir <dir>]
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import { paths } from "../stack/paths.ts";
import {
  bundleFunction,
  configProblem,
  type ConfiguredFunction,
  configuredFunctions,
  type EdgeFunction,
  FUNCTION_SIZE_LIMIT_BYTES,
  lazyUnavailableBuiltins,
  listFunctions,
  localModules,
} from "./deploy/edge-functions.ts";
import { type Finding, scanSource, servesHandler } from "./deploy/runtime-rules.ts";

const mb = (bytes: number) => (bytes < 1_000_000 ? `${(bytes / 1000).toFixed(1)} kB` : `${(bytes / 1_000_000).toFixed(2)} MB`);

interface FunctionReport {
  name: string;
  ok: boolean;
  lines: string[];
}

async function checkFunction(fn: EdgeFunction, root: string, outDir: string, configured: ConfiguredFunction[] | null): Promise<FunctionReport> {
  const lines: string[] = [];
  const where = (f: Finding) => `${relative(root, f.file)}:${f.line}`;
  let ok = true;
  const declared = configured && configProblem(fn, configured, join(root, "supabase"), join(root, "deno.json"));
  if (declared) {
    ok = false;
    lines.push(`  FAIL ${declared}`);
  }

  const modules = await localModules(fn, root);
  const findings = modules.flatMap((file) => scanSource(file, readFileSync(file, "utf8"), { entrypoint: file === resolve(fn.entrypoint) }));
  if (!servesHandler(readFileSync(fn.entrypoint, "utf8"))) {
    findings.unshift({
      file: fn.entrypoint,
      line: 1,
      api: "Deno.serve",
      reason: "index.ts must serve the function's handler with Deno.serve",
      severity: "error",
    });
  }

  const outFile = join(outDir, `${fn.name}.js`);
  const size = await bundleFunction(fn, root, outFile);
  const share = ((size / FUNCTION_SIZE_LIMIT_BYTES) * 100).toFixed(1);
  if (size > FUNCTION_SIZE_LIMIT_BYTES) {
    ok = false;
    lines.push(`  FAIL bundle ${mb(size)} is over the ${mb(FUNCTION_SIZE_LIMIT_BYTES)} limit (${relative(root, outFile)})`);
  } else {
    lines.push(`  bundle ${mb(size)} of ${mb(FUNCTION_SIZE_LIMIT_BYTES)} (${share}%), ${modules.length} own module(s) (${relative(root, outFile)})`);
  }

  for (const f of findings.filter((f) => f.severity === "error")) {
    ok = false;
    lines.push(`  FAIL ${where(f)} ${f.api}: ${f.reason}`);
  }
  for (const f of findings.filter((f) => f.severity === "note")) lines.push(`  note ${where(f)} ${f.api}: ${f.reason}`);
  const lazy = lazyUnavailableBuiltins(readFileSync(outFile, "utf8"));
  if (lazy.length > 0) {
    lines.push(`  note npm code in the bundle can load ${lazy.join(", ")} (lazily, inside packages; only the function's own modules are held to the rules)`);
  }
  return { name: fn.name, ok, lines };
}

function dirOption(argv: string[], flag: string, fallback: string): string {
  const index = argv.indexOf(flag);
  if (index === -1) return fallback;
  const value = argv[index + 1];
  if (!value || value.startsWith("--")) {
    console.error(`${flag} takes a directory`);
    process.exit(2);
  }
  return resolve(value);
}

async function main(): Promise<number> {
  const root = paths.root;
  const argv = process.argv.slice(2);
  const ownFunctions = !argv.includes("--functions-dir");
  const functionsDir = dirOption(argv, "--functions-dir", join(root, "functions"));
  const outDir = dirOption(argv, "--out-dir", join(root, "dist", "functions"));
  const functions = listFunctions(functionsDir);
  if (functions.length === 0) {
    console.error(`no Edge Functions (<name>/index.ts) under ${functionsDir}`);
    return 1;
  }
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  const configured = ownFunctions ? configuredFunctions(readFileSync(join(root, "supabase", "config.toml"), "utf8")) : null;
  const failed: string[] = [];
  for (const fn of functions) {
    console.log(`${fn.name} (${relative(root, fn.entrypoint)})`);
    try {
      const report = await checkFunction(fn, root, outDir, configured);
      for (const line of report.lines) console.log(line);
      if (!report.ok) failed.push(fn.name);
    } catch (error) {
      console.log(`  FAIL ${error instanceof Error ? error.message : String(error)}`);
      failed.push(fn.name);
    }
  }
  console.log(
    failed.length === 0
      ? `deploy check: ${functions.length} function(s) ready to deploy`
      : `deploy check: ${failed.length} of ${functions.length} function(s) failed: ${failed.join(", ")}`,
  );
  return failed.length === 0 ? 0 : 1;
}

if (import.meta.main) {
  main().then((code) => process.exit(code));
}
