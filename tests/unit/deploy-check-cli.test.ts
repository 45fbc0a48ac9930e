import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { paths } from "../../stack/paths.ts";

// `npm run deploy:check` as a deployer runs it: real deno bundle, real module graphs.
let outDir: string;

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), "mdame-deploy-check-"));
});

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

function deployCheck(...args: string[]) {
  const result = spawnSync(process.execPath, ["scripts/deploy-check.ts", "--out-dir", outDir, ...args], {
    cwd: paths.root,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

test("the project's Edge Functions bundle under the size limit and use nothing the Edge Runtime lacks", () => {
  const { code, output } = deployCheck();
  expect(output).toMatch(/^pipeline \(functions\/pipeline\/index\.ts\)\n\s+bundle [\d.]+ (kB|MB) of 20\.00 MB/m);
  expect(output).toMatch(/^worker-callback \(functions\/worker-callback\/index\.ts\)\n\s+bundle [\d.]+ (kB|MB) of 20\.00 MB/m);
  expect(output).not.toContain("FAIL");
  expect(output).toContain("deploy check: 2 function(s) ready to deploy");
  expect(code).toBe(0);
  expect(existsSync(join(outDir, "pipeline.js"))).toBe(true);
  expect(existsSync(join(outDir, "worker-callback.js"))).toBe(true);
  // Two bundles built by esbuild on a busy machine: bun's 5-s default is too tight.
}, 120_000);

test("a function that runs a subprocess and writes outside /tmp fails, named with file:line", () => {
  const { code, output } = deployCheck("--functions-dir", "tests/unit/fixtures/deploy-check/functions");
  expect(code).toBe(1);
  const fixture = "tests/unit/fixtures/deploy-check/functions/spawns-ffmpeg/render.ts";
  expect(output).toContain(`FAIL ${fixture}:3 Deno.Command: subprocesses are not available on the Edge Runtime`);
  expect(output).toContain(`FAIL ${fixture}:4 Deno.writeFile("/var/cache/last-render.mp4"): files can be written only under /tmp`);
  expect(output).toContain("deploy check: 1 of 2 function(s) failed: spawns-ffmpeg");
  // The clean fixture next to it passes: the failure is the function's, not the run's.
  const clean = output.slice(output.indexOf("serves-plainly ("), output.indexOf("spawns-ffmpeg ("));
  expect(clean).toContain("bundle");
  expect(clean).not.toContain("FAIL");
});

test("a directory without functions is an error, not a pass", () => {
  const { code, output } = deployCheck("--functions-dir", outDir);
  expect(code).toBe(1);
  expect(output).toContain("no Edge Functions (<name>/index.ts) under");
});
