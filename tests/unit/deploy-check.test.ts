import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configProblem, configuredFunctions } from "../../scripts/deploy/edge-functions.ts";
import { scanSource, servesHandler } from "../../scripts/deploy/runtime-rules.ts";
import { paths } from "../../stack/paths.ts";
import { readSource } from "../../scripts/deploy/source-text.ts";

const scan = (text: string, entrypoint = false) => scanSource("fn.ts", text, { entrypoint });
const errors = (text: string, entrypoint = false) => scan(text, entrypoint).filter((f) => f.severity === "error").map((f) => `${f.line} ${f.api}`);

describe("source text", () => {
  test("comments and string contents are blanked, offsets and lines kept", () => {
    const text = `const a = "Deno.Command"; // Bun.spawn\n/* Deno.run */ const b = 'x';\n`;
    const source = readSource(text);
    expect(source.code).toHaveLength(text.length);
    expect(source.code).not.toContain("Deno.Command");
    expect(source.code).not.toContain("Bun.spawn");
    expect(source.code).not.toContain("Deno.run");
    expect(source.strings.map((s) => s.value)).toEqual(["Deno.Command", "x"]);
    expect(source.lineOf(text.indexOf("const b"))).toBe(2);
  });

  test("template literals keep their head as static text and their expressions as code", () => {
    const source = readSource("const p = `/var/${Deno.pid}/x`;");
    expect(source.strings[0]).toMatchObject({ value: "/var/", interpolated: true });
    expect(source.code).toContain("Deno.pid");
    expect(source.code).not.toContain("/x");
  });

  test("a regular expression holding quotes or slashes does not open a string or a comment", () => {
    const text = `const re = /["'\\/]+/g; Deno.Command;\nconst url = "https://x.invalid"; Bun.env;`;
    expect(errors(text)).toEqual(["1 Deno.Command", "2 Bun.env"]);
  });
});

describe("Edge Runtime rules", () => {
  test("subprocesses are refused, in Deno's and Node's forms", () => {
    const text = [
      `import { spawn } from "node:child_process";`,
      `const cp = await import("child_process");`,
      `new Deno.Command("ffmpeg").output();`,
      `Deno.run({ cmd: ["ls"] });`,
    ].join("\n");
    expect(errors(text)).toEqual(["1 node:child_process", "2 child_process", "3 Deno.Command", "4 Deno.run"]);
    expect(scan(text)[0]!.reason).toContain("subprocesses");
  });

  test("FFI, workers, vm and Bun are refused", () => {
    const text = [
      `const lib = Deno.dlopen("libx.so", {});`,
      `const w = new Worker(new URL("./w.ts", import.meta.url).href, { type: "module" });`,
      `import { Worker as NodeWorker } from "node:worker_threads";`,
      `import vm from "node:vm";`,
      `const p = Bun.spawn(["ls"]);`,
      `import { serve } from "bun";`,
      `import { dlopen } from "bun:ffi";`,
    ].join("\n");
    expect(errors(text)).toEqual(["1 Deno.dlopen", "2 new Worker", "3 node:worker_threads", "4 node:vm", "5 Bun.spawn", "6 bun", "7 bun:ffi"]);
  });

  test("Deno.serve belongs in index.ts only; other listeners are refused everywhere", () => {
    expect(errors(`Deno.serve(app.fetch);`, true)).toEqual([]);
    expect(errors(`Deno.serve(app.fetch);`, false)).toEqual(["1 Deno.serve"]);
    expect(errors(`const l = Deno.listen({ port: 9000 });`, true)).toEqual(["1 Deno.listen"]);
  });

  test("connections to the blocked SMTP ports are refused; other ports pass", () => {
    const text = [
      `const conn = await Deno.connect({ hostname: "mail.mdame-test.invalid", port: 587 });`,
      `await fetch("smtp://mail.mdame-test.invalid:25/send");`,
      `await fetch("https://api.mdame-test.invalid:2525/v1");`,
      `const server = { port: 5870 };`,
    ].join("\n");
    expect(errors(text)).toEqual(["1 port: 587", `2 "smtp://mail.mdame-test.invalid:25/send"`]);
  });

  test("unstable APIs the runtime does not enable are refused", () => {
    expect(errors(`const kv = await Deno.openKv();\nDeno.cron("x", "* * * * *", () => {});`)).toEqual(["1 Deno.openKv", "2 Deno.cron"]);
  });

  test("writes under /tmp pass, literal paths elsewhere fail, run-time paths are noted", () => {
    const text = [
      `import { mkdir, writeFile as put } from "node:fs/promises";`,
      `import * as fs from "node:fs";`,
      `await Deno.writeTextFile("/tmp/a.txt", "x");`,
      `await put("/tmp/b.txt", "x");`,
      `await Deno.writeTextFile("/etc/a.txt", "x");`,
      `await mkdir("./cache", { recursive: true });`,
      "fs.writeFileSync(`/var/${name}`, data);",
      `await put(join(dir, "c.txt"), "x");`,
      "await Deno.mkdir(`${base}/d`);",
    ].join("\n");
    const found = scan(text);
    expect(found.filter((f) => f.severity === "error").map((f) => `${f.line} ${f.api}`)).toEqual([
      `5 Deno.writeTextFile("/etc/a.txt")`,
      `6 mkdir("./cache")`,
      `7 fs.writeFileSync("/var/")`,
    ]);
    expect(found.filter((f) => f.severity === "note").map((f) => `${f.line} ${f.api}`)).toEqual(["8 writeFile", "9 Deno.mkdir"]);
  });

  test("reading files, a method that shares a write function's name, and type-only imports pass", () => {
    const text = [
      `import type { ChildProcess } from "node:child_process";`,
      `import { readFile } from "node:fs/promises";`,
      `await readFile("/etc/hosts");`,
      `await Deno.readTextFile("/etc/hosts");`,
      `await store.writeFile("/var/x", data);`,
      `const env = Deno.env.get("X");`,
    ].join("\n");
    expect(scan(text)).toEqual([]);
  });

  test("an entrypoint without Deno.serve is told apart from one that serves", () => {
    expect(servesHandler(`import { app } from "./app.ts";\nDeno.serve(app.fetch);`)).toBe(true);
    expect(servesHandler(`// Deno.serve(app.fetch)\nexport default app;`)).toBe(false);
  });
});

describe("supabase/config.toml declarations", () => {
  const supabaseDir = join(paths.root, "supabase");
  const importMap = join(paths.root, "deno.json");
  const fn = (name: string) => ({ name, entrypoint: join(paths.root, "functions", name, "index.ts") });

  test("the project's config declares both functions with their entrypoints and deno.json", () => {
    const configured = configuredFunctions(readFileSync(join(supabaseDir, "config.toml"), "utf8"));
    for (const name of ["pipeline", "worker-callback"]) expect(configProblem(fn(name), configured, supabaseDir, importMap)).toBeNull();
  });

  test("a function missing from config.toml, or pointing elsewhere, is named", () => {
    const configured = configuredFunctions([
      "[functions.pipeline]",
      "enabled = true",
      'entrypoint = "./functions/pipeline/index.ts" # the CLI default, not where the code is',
      'import_map = "../deno.json"',
      "",
      '[functions."worker-callback"]',
      'entrypoint = "../functions/worker-callback/index.ts"',
      "[db]",
      'import_map = "../elsewhere.json"',
    ].join("\n"));
    expect(configured).toEqual([
      { name: "pipeline", entrypoint: "./functions/pipeline/index.ts", importMap: "../deno.json" },
      { name: "worker-callback", entrypoint: "../functions/worker-callback/index.ts" },
    ]);
    expect(configProblem(fn("pipeline"), configured, supabaseDir, importMap)).toContain(
      'entrypoint "./functions/pipeline/index.ts" is not ../functions/pipeline/index.ts',
    );
    expect(configProblem(fn("worker-callback"), configured, supabaseDir, importMap)).toContain('import_map "" is not ../deno.json');
    expect(configProblem(fn("reports"), configured, supabaseDir, importMap)).toContain("no [functions.reports]");
  });
});
