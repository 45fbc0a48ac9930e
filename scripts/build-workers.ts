/**
 * `npm run build:workers`: each Bun pull worker as one self-contained executable
 * (`bun build --compile`), for machines that have neither this repository nor node_modules:
 *   dist/gpu-worker       from gpu-worker/main.ts
 *   dist/render-runner    from render-runner/main.ts
 * The executables are configured by their environment only (shared/config/env.ts) and need
 * FFmpeg on the machine (FFMPEG_PATH, or ffmpeg/ffprobe on PATH).
 *
 *   bun scripts/build-workers.ts [gpu-worker|render-runner …] [--target bun-linux-x64|bun-linux-arm64|…] [--out-dir <dir>]
 * With no worker named, both are built.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import { paths } from "../stack/paths.ts";

export const WORKERS = [
  { name: "gpu-worker", entrypoint: "gpu-worker/main.ts" },
  { name: "render-runner", entrypoint: "render-runner/main.ts" },
] as const;

function option(argv: string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  if (index === -1) return undefined;
  const value = argv[index + 1];
  if (!value || value.startsWith("--")) {
    console.error(`${flag} takes a value`);
    process.exit(2);
  }
  return value;
}

function main(): number {
  const argv = process.argv.slice(2);
  const outDir = resolve(option(argv, "--out-dir") ?? join(paths.root, "dist"));
  const target = option(argv, "--target");
  const named = argv.filter((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--"));
  const unknown = named.filter((n) => !WORKERS.some((w) => w.name === n));
  if (unknown.length > 0) {
    console.error(`unknown worker(s): ${unknown.join(", ")}; known: ${WORKERS.map((w) => w.name).join(", ")}`);
    return 2;
  }
  mkdirSync(outDir, { recursive: true });
  let failed = 0;
  for (const worker of WORKERS.filter((w) => named.length === 0 || named.includes(w.name))) {
    const outfile = join(outDir, worker.name);
    // Not minified: class names stay readable in the JSON logs; the source map keeps stack traces
    // pointing at the TypeScript sources.
    const args = ["build", "--compile", "--sourcemap", worker.entrypoint, "--outfile", outfile];
    if (target) args.push("--target", target);
    const result = spawnSync(process.execPath, args, { cwd: paths.root, encoding: "utf8" });
    if (result.status !== 0) {
      failed += 1;
      console.error(`${worker.name}: bun build failed\n${(result.stderr || result.stdout).trim()}`);
      continue;
    }
    // The executable embeds its source map; the copy bun writes beside it is not needed to run.
    rmSync(`${outfile}.map`, { force: true });
    const mb = (statSync(outfile).size / 1_000_000).toFixed(1);
    console.log(`${worker.name}: ${relative(paths.root, outfile) || outfile} (${mb} MB)`);
  }
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) process.exit(main());
