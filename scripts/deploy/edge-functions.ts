/**
 * The Edge Functions as `supabase functions deploy` sees them: `functions/<name>/index.ts`, with
 * deno.json as the import map. Deno resolves the graph (`deno info`) and bundles it
 * (`deno bundle`, npm packages from node_modules), so nothing here needs the network beyond what
 * Deno itself already has.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Supabase's limit on a deployed function, after bundling. */
export const FUNCTION_SIZE_LIMIT_BYTES = 20 * 1000 * 1000;

export interface EdgeFunction {
  name: string;
  entrypoint: string;
}

/** Each folder of `functionsDir` holding an index.ts (folders starting with `_` are shared code). */
export function listFunctions(functionsDir: string): EdgeFunction[] {
  if (!existsSync(functionsDir)) return [];
  return readdirSync(functionsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("_") && !e.name.startsWith("."))
    .map((e) => ({ name: e.name, entrypoint: join(functionsDir, e.name, "index.ts") }))
    .filter((f) => existsSync(f.entrypoint))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCommand(argv: string[], cwd: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("error", (error) => resolve({ code: 127, stdout, stderr: `${stderr}${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

const deno = (root: string) => join(root, "node_modules", ".bin", "deno");

/** The function's own source files: the file: modules of its graph outside node_modules. */
export async function localModules(fn: EdgeFunction, root: string): Promise<string[]> {
  const result = await runCommand([deno(root), "info", "--json", "--config", join(root, "deno.json"), fn.entrypoint], root);
  if (result.code !== 0) throw new Error(`deno info failed for ${fn.name}:\n${result.stderr.trim()}`);
  const graph = JSON.parse(result.stdout) as { modules: { specifier: string; error?: string }[] };
  const broken = graph.modules.filter((m) => m.error);
  if (broken.length > 0) throw new Error(`${fn.name}: unresolved modules:\n${broken.map((m) => `  ${m.specifier}: ${m.error}`).join("\n")}`);
  return graph.modules
    .map((m) => m.specifier)
    .filter((s) => s.startsWith("file:"))
    .map((s) => fileURLToPath(s))
    .filter((p) => !p.split(/[\\/]/).includes("node_modules"))
    .sort();
}

/** Bundles the function into `outFile` as Supabase would (npm packages included); returns its size. */
export async function bundleFunction(fn: EdgeFunction, root: string, outFile: string): Promise<number> {
  const argv = [deno(root), "bundle", "--quiet", "--platform", "deno", "--config", join(root, "deno.json"), "--output", outFile, fn.entrypoint];
  const result = await runCommand(argv, root);
  if (result.code !== 0 || !existsSync(outFile)) {
    throw new Error(`deno bundle failed for ${fn.name} (${relative(root, fn.entrypoint)}):\n${(result.stderr || result.stdout).trim()}`);
  }
  return (await import("node:fs")).statSync(outFile).size;
}

/**
 * Node built-ins that the bundle's npm code loads and the Edge Runtime lacks. Packages load them
 * lazily for paths this engine does not take (a CLI fallback, a transport thread), so these are
 * notes, not failures; the function's own code is held to the rules in runtime-rules.ts.
 */
export function lazyUnavailableBuiltins(bundle: string): string[] {
  const seen = new Set<string>();
  for (const match of bundle.matchAll(/(?:require\(|from\s*|import\()\s*["'](?:node:)?(child_process|worker_threads|vm|cluster)["']/g)) {
    seen.add(`node:${match[1]}`);
  }
  return [...seen].sort();
}

export interface ConfiguredFunction {
  name: string;
  entrypoint?: string;
  importMap?: string;
}

/**
 * The `[functions.<name>]` tables of supabase/config.toml with their `entrypoint` and
 * `import_map` (paths as written, relative to supabase/). `supabase functions deploy` takes a
 * function's code from there, so a function missing from it would deploy from
 * supabase/functions/<name>, which does not exist.
 */
export function configuredFunctions(toml: string): ConfiguredFunction[] {
  const found: ConfiguredFunction[] = [];
  let current: ConfiguredFunction | undefined;
  for (const raw of toml.split("\n")) {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    const table = /^\[([^\]]+)\]$/.exec(line);
    if (table) {
      const name = /^functions\.(?:"([^"]+)"|([A-Za-z0-9_-]+))$/.exec(table[1]!.trim());
      current = name ? { name: (name[1] ?? name[2])! } : undefined;
      if (current) found.push(current);
      continue;
    }
    const entry = /^(entrypoint|import_map)\s*=\s*"([^"]*)"$/.exec(line);
    if (current && entry) {
      if (entry[1] === "entrypoint") current.entrypoint = entry[2];
      else current.importMap = entry[2];
    }
  }
  return found;
}

/** What is wrong with a function's declaration in config.toml, or null when it deploys this code. */
export function configProblem(fn: EdgeFunction, configured: ConfiguredFunction[], supabaseDir: string, importMap: string): string | null {
  const entry = configured.find((c) => c.name === fn.name);
  if (!entry) return `supabase/config.toml has no [functions.${fn.name}]: deploy would look for supabase/functions/${fn.name}`;
  if (!entry.entrypoint || resolve(supabaseDir, entry.entrypoint) !== resolve(fn.entrypoint)) {
    return `supabase/config.toml [functions.${fn.name}] entrypoint ${JSON.stringify(entry.entrypoint ?? "")} is not ${relative(supabaseDir, fn.entrypoint)}`;
  }
  if (!entry.importMap || resolve(supabaseDir, entry.importMap) !== resolve(importMap)) {
    return `supabase/config.toml [functions.${fn.name}] import_map ${JSON.stringify(entry.importMap ?? "")} is not ${relative(supabaseDir, importMap)}`;
  }
  return null;
}
