/**
 * What Supabase's Edge Runtime does not offer, as rules over an Edge Function's own source files
 * (the modules of its graph that live in this project). Sources for each rule:
 *   - no subprocesses and no FFI: the runtime grants neither `--allow-run` nor `--allow-ffi`;
 *   - "Web Worker API (or Node vm API) are not available" (Edge Functions limits page);
 *   - files can be written only under /tmp ("ephemeral storage" page; /s3 mounts aside);
 *   - the function is served by `Deno.serve` in its entrypoint; other listeners have no route;
 *   - Deno KV and Deno.cron sit behind unstable flags the runtime does not enable;
 *   - "outgoing connections to ports 25 and 587 are not allowed" (limits page): SMTP;
 *   - and it is Deno, not Bun: `Bun.*` and `bun:` modules do not exist there.
 */
import { literalAt, readSource, type SourceText } from "./source-text.ts";

export interface Finding {
  file: string;
  line: number;
  /** The API as written (`Deno.Command`, `node:child_process`, `writeFile("/var/x")`). */
  api: string;
  reason: string;
  /** `error` fails the check; `note` is printed (a write whose path is only known at run time). */
  severity: "error" | "note";
}

const SUBPROCESS = "subprocesses are not available on the Edge Runtime";
const FFI = "FFI (native libraries) is not available on the Edge Runtime";
const WORKERS = "the Web Worker API and Node's vm/worker_threads are not available on the Edge Runtime";
const BUN = "the Edge Runtime is Deno: Bun's APIs do not exist there";
const UNSTABLE = "unstable Deno API the Edge Runtime does not enable";
const LISTEN = "the Edge Runtime serves one handler: Deno.serve in the function's index.ts; other listeners get no traffic";
const WRITE = "files can be written only under /tmp on the Edge Runtime";
const SMTP_PORT = "outgoing connections to ports 25 and 587 are blocked on the Edge Runtime";

/** Modules whose mere import means an unavailable capability. */
const FORBIDDEN_MODULES: Record<string, string> = {
  "child_process": SUBPROCESS,
  "worker_threads": WORKERS,
  "vm": WORKERS,
  "cluster": SUBPROCESS,
  "bun": BUN,
};

/** `Deno.<name>` members and why each is unavailable. */
const FORBIDDEN_DENO: Record<string, string> = {
  Command: SUBPROCESS,
  run: SUBPROCESS,
  spawn: SUBPROCESS,
  spawnSync: SUBPROCESS,
  spawnChild: SUBPROCESS,
  dlopen: FFI,
  openKv: UNSTABLE,
  cron: UNSTABLE,
  listen: LISTEN,
  listenTls: LISTEN,
  listenDatagram: LISTEN,
};

/** Deno file-system calls that write; the first argument is the path. */
const DENO_WRITES = new Set([
  "writeFile",
  "writeFileSync",
  "writeTextFile",
  "writeTextFileSync",
  "mkdir",
  "mkdirSync",
  "create",
  "createSync",
  "remove",
  "removeSync",
  "rename",
  "renameSync",
  "truncate",
  "truncateSync",
  "symlink",
  "symlinkSync",
  "link",
  "linkSync",
  "copyFile",
  "copyFileSync",
  "chmod",
  "chmodSync",
  "chown",
  "chownSync",
  "utime",
  "utimeSync",
]);

/** node:fs (and node:fs/promises) calls that write; the first argument is the path. */
const NODE_WRITES = new Set([
  "writeFile",
  "writeFileSync",
  "appendFile",
  "appendFileSync",
  "mkdir",
  "mkdirSync",
  "mkdtemp",
  "mkdtempSync",
  "rm",
  "rmSync",
  "rmdir",
  "rmdirSync",
  "unlink",
  "unlinkSync",
  "rename",
  "renameSync",
  "copyFile",
  "copyFileSync",
  "cp",
  "cpSync",
  "createWriteStream",
  "truncate",
  "truncateSync",
  "symlink",
  "symlinkSync",
  "link",
  "linkSync",
  "chmod",
  "chmodSync",
  "chown",
  "chownSync",
  "utimes",
  "utimesSync",
]);

const isTmpPath = (path: string) => path === "/tmp" || path.startsWith("/tmp/");

function moduleName(specifier: string): string {
  return specifier.replace(/^node:/, "").split("/")[0]!;
}

/**
 * Every module specifier the source imports, re-exports, dynamically imports or requires at run
 * time; `import type` / `export type` statements are erased before running, so they are left out.
 */
function importsOf(source: SourceText): { specifier: string; offset: number }[] {
  const typeOnly = new Set<number>();
  for (const match of source.code.matchAll(/\b(import|export)\s+type\s[\s\S]*?\bfrom\s*(?=["'])/g)) {
    typeOnly.add(match.index + match[0].length);
  }
  const found: { specifier: string; offset: number }[] = [];
  const patterns = [/\bfrom\s*(?=["'])/g, /\bimport\s*(?=["'])/g, /\bimport\s*\(\s*(?=["'`])/g, /\brequire\s*\(\s*(?=["'`])/g];
  for (const pattern of patterns) {
    for (const match of source.code.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (typeOnly.has(end)) continue;
      const literal = literalAt(source, end);
      if (literal && !literal.interpolated) found.push({ specifier: literal.value, offset: literal.start });
    }
  }
  return found;
}

/** The local names a source binds to node:fs write functions (`import { writeFile as w }`, `fs.`). */
function nodeFsBindings(source: SourceText): { functions: Map<string, string>; namespaces: Set<string> } {
  const functions = new Map<string, string>();
  const namespaces = new Set<string>();
  const importClause = /\bimport\s+(type\s+)?([\s\S]*?)\bfrom\s*(?=["'])/g;
  for (const match of source.code.matchAll(importClause)) {
    if (match[1]) continue;
    const literal = literalAt(source, match.index + match[0].length);
    if (!literal || !/^(node:)?fs(\/promises)?$/.test(literal.value)) continue;
    const clause = match[2]!;
    const named = /\{([\s\S]*)\}/.exec(clause);
    if (named) {
      for (const part of named[1]!.split(",")) {
        const [imported, local] = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/);
        if (imported && NODE_WRITES.has(imported)) functions.set((local ?? imported).trim(), imported);
      }
    }
    const namespace = /\*\s*as\s+([A-Za-z_$][\w$]*)/.exec(clause) ?? /^\s*([A-Za-z_$][\w$]*)\s*(,|$)/.exec(clause);
    if (namespace) namespaces.add(namespace[1]!);
  }
  return { functions, namespaces };
}

function writeFinding(source: SourceText, file: string, callOffset: number, argsOffset: number, api: string): Finding {
  const literal = literalAt(source, argsOffset);
  const line = source.lineOf(callOffset);
  if (literal && !isTmpPath(literal.value) && (literal.value !== "" || !literal.interpolated)) {
    return { file, line, api: `${api}(${JSON.stringify(literal.value)})`, reason: WRITE, severity: "error" };
  }
  if (literal && isTmpPath(literal.value)) return { file, line, api, reason: "", severity: "note" };
  return { file, line, api, reason: "writes to a path known only at run time: it must be under /tmp on the Edge Runtime", severity: "note" };
}

/**
 * Findings for one source file of an Edge Function. `entrypoint` is true for the function's
 * index.ts, the one place `Deno.serve` belongs.
 */
export function scanSource(file: string, text: string, options: { entrypoint: boolean }): Finding[] {
  const source = readSource(text);
  const findings: Finding[] = [];
  const code = source.code;

  for (const { specifier, offset } of importsOf(source)) {
    const name = moduleName(specifier);
    const isNodeBuiltin = specifier.startsWith("node:") || !specifier.includes(":");
    if (specifier.startsWith("bun:") || specifier === "bun") {
      findings.push({ file, line: source.lineOf(offset), api: specifier, reason: BUN, severity: "error" });
    } else if (isNodeBuiltin && name in FORBIDDEN_MODULES && !specifier.startsWith(".")) {
      findings.push({ file, line: source.lineOf(offset), api: specifier, reason: FORBIDDEN_MODULES[name]!, severity: "error" });
    }
  }

  for (const match of code.matchAll(/(?<![\w$.])Deno\s*\.\s*([A-Za-z_$][\w$]*)/g)) {
    const member = match[1]!;
    const line = source.lineOf(match.index);
    if (member === "serve") {
      if (!options.entrypoint) findings.push({ file, line, api: "Deno.serve", reason: LISTEN, severity: "error" });
    } else if (member in FORBIDDEN_DENO) {
      findings.push({ file, line, api: `Deno.${member}`, reason: FORBIDDEN_DENO[member]!, severity: "error" });
    } else if (DENO_WRITES.has(member)) {
      const args = /^\s*\(/.exec(code.slice(match.index + match[0].length));
      if (args) findings.push(writeFinding(source, file, match.index, match.index + match[0].length + args[0].length, `Deno.${member}`));
    }
  }

  for (const match of code.matchAll(/(?<![\w$.])Bun\s*\.\s*([A-Za-z_$][\w$]*)/g)) {
    findings.push({ file, line: source.lineOf(match.index), api: `Bun.${match[1]}`, reason: BUN, severity: "error" });
  }

  for (const match of code.matchAll(/(?<![\w$.])new\s+(Worker|SharedWorker)\s*\(/g)) {
    findings.push({ file, line: source.lineOf(match.index), api: `new ${match[1]}`, reason: WORKERS, severity: "error" });
  }
  for (const match of code.matchAll(/(?<![\w$])process\s*\.\s*dlopen\b/g)) {
    findings.push({ file, line: source.lineOf(match.index), api: "process.dlopen", reason: FFI, severity: "error" });
  }

  for (const literal of source.strings) {
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(25|587)(?![0-9])/i.test(literal.value)) {
      findings.push({ file, line: source.lineOf(literal.start), api: JSON.stringify(literal.value), reason: SMTP_PORT, severity: "error" });
    }
  }
  for (const match of code.matchAll(/(?<![\w$])port\s*:\s*(25|587)(?![\w$.])/g)) {
    findings.push({ file, line: source.lineOf(match.index), api: `port: ${match[1]}`, reason: SMTP_PORT, severity: "error" });
  }

  const fs = nodeFsBindings(source);
  for (const match of code.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)(\s*\.\s*([A-Za-z_$][\w$]*))?\s*\(/g)) {
    const [whole, first, , member] = match;
    let api: string | undefined;
    if (member && fs.namespaces.has(first!) && NODE_WRITES.has(member)) api = `${first}.${member}`;
    else if (!member && fs.functions.has(first!)) api = fs.functions.get(first!)!;
    if (api) findings.push(writeFinding(source, file, match.index, match.index + whole.length, api));
  }

  return findings
    .filter((f) => f.severity === "error" || f.reason !== "")
    .sort((a, b) => a.line - b.line);
}

/** Whether an entrypoint serves its handler (Supabase routes requests to `Deno.serve`). */
export function servesHandler(text: string): boolean {
  return /(?<![\w$.])Deno\s*\.\s*serve\s*\(/.test(readSource(text).code);
}
