/**
 * The `mdame` CLI without a server: argument parsing, usage errors, where it finds the API, how
 * HTTP answers become exit codes, and what the operator reads (tables, the live progress view).
 */
import { describe, expect, test } from "bun:test";
import { commandHelp, mainHelp, parseArgs } from "../../cli/args.ts";
import { describeAbort } from "../../cli/commands/abort.ts";
import { formatDeadLetters } from "../../cli/commands/dlq.ts";
import { exitCodeForRun } from "../../cli/commands/run.ts";
import { onlyReviewsLeft } from "../../cli/run-progress.ts";
import { formatRunStatus } from "../../cli/commands/status.ts";
import { resolveApiConfig } from "../../cli/config.ts";
import { parseEnvFile } from "../../stack/stack-env.ts";
import { apiError, EXIT, exitCodeForStatus, networkError, UsageError } from "../../cli/errors.ts";
import { ProgressView } from "../../cli/live-progress.ts";
import { main } from "../../cli/main.ts";
import type { RunRecord, RunState, RunStatus } from "../../shared/contracts/operator.ts";

const RUN = "0b5c7c5e-3a3e-4c4e-9f5e-1d2f3a4b5c6d";

/** A run as the status and the abort answer show it. */
const runRecord = (status: RunRecord["status"]): RunRecord => ({
  id: RUN,
  env: "dev",
  run_date: "2026-11-29",
  trigger_kind: "manual",
  dimension_filter: null,
  status,
  error: null,
  created_at: "2026-11-29T11:58:00Z",
  updated_at: "2026-11-29T11:59:00Z",
  finished_at: null,
});

function usageError(argv: string[]): UsageError {
  try {
    parseArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error(`parseArgs(${JSON.stringify(argv)}) accepted it`);
}

describe("parseArgs", () => {
  test("run takes its flags in both spellings", () => {
    expect(parseArgs(["run"])).toEqual({ name: "run", dimension: null, key: null, wait: false, json: false });
    expect(parseArgs(["run", "--dimension", "tech-explained", "--key=manual-key-1", "--wait"])).toEqual({
      name: "run",
      dimension: "tech-explained",
      key: "manual-key-1",
      wait: true,
      json: false,
    });
  });

  test("run abort is a subcommand with a run id and an optional reason", () => {
    expect(parseArgs(["run", "abort", RUN.toUpperCase(), "--reason", "bad topic"])).toEqual({ name: "run abort", run: RUN, reason: "bad topic", json: false });
    expect(parseArgs(["run", "abort", RUN, "--json"])).toMatchObject({ name: "run abort", reason: null, json: true });
  });

  test("status defaults to the latest run; --list takes a limit", () => {
    expect(parseArgs(["status"])).toEqual({ name: "status", run: null, list: false, limit: 20, json: false });
    expect(parseArgs(["status", RUN, "--json"])).toMatchObject({ run: RUN, json: true });
    expect(parseArgs(["status", "--list", "--limit", "5"])).toMatchObject({ list: true, limit: 5 });
  });

  test("dlq list and dlq retry", () => {
    expect(parseArgs(["dlq", "list"])).toEqual({ name: "dlq list", limit: 50, json: false });
    expect(parseArgs(["dlq", "list", "--limit=3", "--json"])).toEqual({ name: "dlq list", limit: 3, json: true });
    expect(parseArgs(["dlq", "retry", "42"])).toEqual({ name: "dlq retry", id: "42", json: false });
  });

  test("--help anywhere asks for the help of what comes before it", () => {
    expect(parseArgs(["--help"])).toEqual({ name: "help", topic: null });
    expect(parseArgs(["-h"])).toEqual({ name: "help", topic: null });
    expect(parseArgs(["run", "--help"])).toEqual({ name: "help", topic: "run" });
    expect(parseArgs(["run", "abort", "--help"])).toEqual({ name: "help", topic: "run abort" });
    expect(parseArgs(["dlq", "--help"])).toEqual({ name: "help", topic: "dlq" });
    expect(parseArgs(["dlq", "retry", "-h"])).toEqual({ name: "help", topic: "dlq retry" });
    expect(parseArgs(["help", "status"])).toEqual({ name: "help", topic: "status" });
  });

  test("a value after -- is taken as it is", () => {
    expect(parseArgs(["run", "abort", "--reason", "-x", "--", RUN])).toMatchObject({ run: RUN, reason: "-x" });
  });
});

describe("usage errors", () => {
  test.each([
    [[], "no command given", undefined],
    [["publish"], "unknown command: publish", undefined],
    [["dlq", "purge"], "unknown command: dlq purge", "dlq"],
    [["dlq"], "dlq needs a subcommand", "dlq"],
    [["--verbose"], "unknown flag: --verbose", undefined],
    [["status", "--all"], "unknown flag: --all", "status"],
    [["status", "-v"], "unknown flag: -v", "status"],
    [["run", "--dimension"], "--dimension needs a value <id>", "run"],
    [["run", "--dimension", "--wait"], "--dimension needs a value <id>", "run"],
    [["run", "--wait=yes"], "--wait takes no value", "run"],
    [["run", "--wait", "--wait"], "--wait is given twice", "run"],
    [["run", "today"], 'run takes no argument (got "today")', "run"],
    [["run", "--key", "short"], "--key must be 8 to 200 characters", "run"],
    [["run", "abort"], "run abort needs <run>", "run abort"],
    [["run", "abort", "latest"], 'not a run id (a uuid): "latest"', "run abort"],
    [["run", "abort", RUN, "--reason="], "--reason needs a value <text>", "run abort"],
    [["run", "abort", RUN, "--reason", "  "], "--reason needs some text", "run abort"],
    [["status", RUN, "--list"], "status takes a run or --list, not both", "status"],
    [["status", "--limit", "5"], "--limit goes with --list", "status"],
    [["status", RUN, "extra"], 'unexpected argument: "extra"', "status"],
    [["dlq", "list", "--limit", "0"], 'from 1 to 500, not "0"', "dlq list"],
    [["dlq", "list", "--limit", "ten"], 'not "ten"', "dlq list"],
    [["dlq", "retry"], "dlq retry needs <id>", "dlq retry"],
    [["dlq", "retry", "-3"], "unknown flag: -3", "dlq retry"],
    [["dlq", "retry", "3.5"], 'not a dead-letter id (a positive whole number): "3.5"', "dlq retry"],
    [["help", "deploy"], "no such command: deploy", undefined],
  ] as [string[], string, string | undefined][])("%j", (argv, message, command) => {
    const error = usageError(argv);
    expect(error.message).toContain(message);
    expect(error.command).toBe(command);
    expect(error.exitCode).toBe(2);
  });
});

describe("help", () => {
  test("the general help lists every command and documents every exit code", () => {
    const help = mainHelp();
    for (const command of ["run ", "run abort", "status", "dlq list", "dlq retry"]) expect(help).toContain(`  ${command}`);
    for (const code of [0, 1, 2, 3, 4, 5, 6]) expect(help).toMatch(new RegExp(`^  ${code}  \\S`, "m"));
    expect(help).toContain("the service-role key was refused (HTTP 401)");
    expect(help).toContain("FUNCTIONS_URL");
    expect(help).toContain("SERVICE_ROLE_KEY");
  });

  test("a command's help shows its synopsis, flags and subcommands", () => {
    const run = commandHelp("run");
    expect(run).toContain("Usage: mdame run [--dimension <id>] [--key <key>] [--wait] [--json]");
    expect(run).toContain("mdame run abort <run> [--reason <text>] [--json]");
    expect(commandHelp("dlq retry")).toContain("Usage: mdame dlq retry <id> [--json]");
    expect(commandHelp("dlq")).toContain("mdame dlq list [--limit <n>] [--json]");
  });
});

describe("exit codes", () => {
  test("HTTP statuses map to the documented codes", () => {
    expect([401, 404, 409, 400, 429, 500, 503].map(exitCodeForStatus)).toEqual([3, 4, 5, 1, 1, 1, 1]);
  });

  test("messages: a refused key, the server's own words for 404/409, the Zod issues for 400", () => {
    expect(apiError(401, { error: "a service-role bearer token is required" }, "GET http://x/pipeline/runs").message)
      .toStartWith("the service-role key was refused");
    expect(apiError(404, { error: "no run 1234" }, "u")).toMatchObject({ message: "no run 1234", exitCode: EXIT.notFound });
    expect(apiError(409, { error: "dead letter 7 was already retried as message 12" }, "u").exitCode).toBe(EXIT.conflict);
    expect(apiError(400, { error: "invalid request", issues: [{ code: "invalid_type", path: ["dimension"], message: "Invalid input" }] }, "u").message)
      .toBe("the API refused the request: dimension: Invalid input");
    const internal = apiError(500, { error: "internal error", error_id: "e-1" }, "POST u");
    expect(internal.message).toContain("e-1");
    expect(internal.exitCode).toBe(EXIT.failure);
    expect(apiError(502, "<html>Bad Gateway</html>", "u").message).toContain("Bad Gateway");
  });

  test("a network failure names the address it could not reach", () => {
    const error = networkError("http://127.0.0.1:1/functions/v1", Object.assign(new TypeError("Unable to connect"), { code: "ECONNREFUSED" }));
    expect(error.message).toBe("cannot reach http://127.0.0.1:1/functions/v1: Unable to connect");
    expect(error.exitCode).toBe(EXIT.unreachable);
  });

  test("a followed run exits 0 only when it completed, or when all it waits for is review", () => {
    const status = (state: RunState, stages: string[], ingest: "ingesting" | "ingested" = "ingested") =>
      ({
        run: { status: state },
        dimensions: [{ dimension_id: "tech-explained", status: ingest }],
        units: stages.map((stage, i) => ({ id: `u${i}`, dimension_id: "tech-explained", stage })),
      }) as unknown as RunStatus;
    expect((["completed", "failed", "rolled_back"] as const).map((s) => exitCodeForRun(status(s, ["published"])))).toEqual([0, 1, 1]);
    expect(exitCodeForRun(status("running", ["awaiting_review", "published"]))).toBe(0);
    expect(onlyReviewsLeft(status("running", ["awaiting_review", "render"]))).toBe(false);
    expect(onlyReviewsLeft(status("running", ["awaiting_review"], "ingesting"))).toBe(false);
    expect(onlyReviewsLeft(status("running", ["published", "deferred"]))).toBe(false);
    expect(onlyReviewsLeft(status("running", ["awaiting_review", "deferred", "failed"]))).toBe(true);
  });
});

describe("where the API is", () => {
  const file = "/stack/.local/stack.env";
  const stackEnv = 'ENV=dev\nFUNCTIONS_URL=http://127.0.0.1:54321/functions/v1\nSERVICE_ROLE_KEY="k e y"\n';
  const reader = (text: string | null) => (path: string) => {
    expect(path).toBe(file);
    if (text === null) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    return text;
  };

  test("stack.env lines, JSON-quoted where needed", () => {
    expect(parseEnvFile('# comment\nA=1\n\nB="x\\"y"\nexport C=http://h:1/p?q=a=b\nnot a line\n')).toEqual({ A: "1", B: 'x"y', C: "http://h:1/p?q=a=b" });
  });

  test("the environment wins when it sets both; stack.env is read when it sets neither", () => {
    expect(resolveApiConfig({ FUNCTIONS_URL: "https://p.supabase.co/functions/v1/", SERVICE_ROLE_KEY: "srk" }, file, reader(stackEnv)))
      .toEqual({ baseUrl: "https://p.supabase.co/functions/v1", serviceRoleKey: "srk", source: "environment" });
    expect(resolveApiConfig({}, file, reader(stackEnv)))
      .toEqual({ baseUrl: "http://127.0.0.1:54321/functions/v1", serviceRoleKey: "k e y", source: file });
  });

  test("one of the two without the other is refused rather than mixed with the local stack's", () => {
    expect(() => resolveApiConfig({ FUNCTIONS_URL: "https://p.supabase.co/functions/v1" }, file, reader(stackEnv)))
      .toThrow("FUNCTIONS_URL is set but SERVICE_ROLE_KEY is not");
  });

  test("neither set and no local stack: the error names both variables", () => {
    let caught: unknown;
    try {
      resolveApiConfig({}, file, reader(null));
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).toContain("set FUNCTIONS_URL and SERVICE_ROLE_KEY");
    expect((caught as { exitCode: number }).exitCode).toBe(2);
  });
});

/** A screen that records what was written. */
function screen(isTTY = false) {
  const chunks: string[] = [];
  return { chunks, text: () => chunks.join(""), write: (s: string) => chunks.push(s), isTTY, columns: 80 };
}

describe("main", () => {
  const env = { FUNCTIONS_URL: "http://api.test/functions/v1", SERVICE_ROLE_KEY: "srk" };
  const answering = (status: number, body: unknown) => async (url: string, init: RequestInit) => {
    expect(new Headers(init.headers).get("authorization")).toBe("Bearer srk");
    expect(url).toStartWith("http://api.test/functions/v1/pipeline/");
    return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  };
  async function cli(argv: string[], fetch?: (url: string, init: RequestInit) => Promise<Response>) {
    const out = screen();
    const err = screen();
    const code = await main(argv, { out, err, env, fetch, stackEnvFile: "/nonexistent/stack.env" });
    return { code, out: out.text(), err: err.text() };
  }

  test("a usage error prints the usage on stderr and nothing on stdout", async () => {
    const result = await cli(["dlq", "retry", "x1"]);
    expect(result).toMatchObject({ code: 2, out: "" });
    expect(result.err).toContain("usage: mdame dlq retry <id>");
  });

  test("each HTTP failure ends with its exit code and message", async () => {
    const refused = await cli(["status", "--list"], answering(401, { error: "a service-role bearer token is required" }));
    expect(refused.code).toBe(3);
    expect(refused.err).toContain("the service-role key was refused");
    const missing = await cli(["status", RUN], answering(404, { error: `no run ${RUN}` }));
    expect(missing).toMatchObject({ code: 4, err: `mdame: no run ${RUN}\n` });
    const conflict = await cli(["dlq", "retry", "7"], answering(409, { error: "dead letter 7 was already retried as message 12" }));
    expect(conflict).toMatchObject({ code: 5, err: "mdame: dead letter 7 was already retried as message 12\n" });
    const broken = await cli(["dlq", "list"], answering(500, { error: "internal error", error_id: "abc" }));
    expect(broken.code).toBe(1);
    const unreachable = await cli(["dlq", "list"], () => Promise.reject(new TypeError("Unable to connect")));
    expect(unreachable).toMatchObject({ code: 6, err: "mdame: cannot reach http://api.test/functions/v1: Unable to connect\n" });
  });

  test("an answer that breaks the contract is an error, not garbage on screen", async () => {
    const result = await cli(["dlq", "list"], answering(200, { rows: [] }));
    expect(result.code).toBe(1);
    expect(result.err).toContain("unexpected answer from GET http://api.test/functions/v1/pipeline/dead-letters?limit=50");
  });
});

describe("what the operator reads", () => {
  const now = Date.parse("2026-11-29T12:00:00Z");

  test("the dead-letter table cuts long errors to the terminal width", () => {
    const lines = formatDeadLetters(
      [{
        id: 12,
        queue_name: "render",
        msg_id: 90,
        read_ct: 3,
        payload: {},
        unit_id: RUN,
        created_at: "2026-11-29T11:58:00Z",
        last_error: `ffmpeg exited with 1: ${"x".repeat(300)}`,
        retried_at: null,
        retried_msg_id: null,
      }],
      now,
      80,
    );
    expect(lines[0]).toMatch(/^id\s+queue\s+unit\s+attempts\s+age\s+retried\s+last error$/);
    expect(lines[1]).toMatch(/^12\s+render\s+0b5c7c5e\s+3\s+2m\s+-\s+ffmpeg exited with 1: x+…$/);
    expect(lines[1]!.length).toBe(80);
  });

  test("an abort of a run that had already ended says nothing changed", () => {
    const run = { ...runRecord("completed"), idempotency_key: "k".repeat(64) };
    expect(describeAbort({ run, cancelled_units: 0, released_assets: [], removed_assets: 0, unremoved_assets: [] })[0])
      .toBe(`run ${RUN} is completed: nothing left to cancel`);
    const aborted = describeAbort({
      run: { ...run, status: "rolled_back", error: "aborted: bad topic" },
      cancelled_units: 2,
      released_assets: ["voice/a.mp3"],
      removed_assets: 0,
      unremoved_assets: [{ key: "voice/a.mp3", error: "permission denied" }],
    });
    expect(aborted).toEqual([
      `run ${RUN} rolled_back`,
      "  2 unit(s) cancelled, 1 asset(s) released, 0 deleted from storage",
      "  not deleted: voice/a.mp3 (permission denied)",
    ]);
  });

  const status = (stage: string, ready: number): RunStatus => ({
    run: runRecord("running"),
    dimensions: [{
      dimension_id: "tech-explained",
      status: "ingested",
      topics_seen: 3,
      units_created: 1,
      updated_at: "2026-11-29T11:59:00Z",
      config_hash: null,
      config: null,
    }],
    units: [{
      id: RUN,
      dimension_id: "tech-explained",
      stage,
      title: "t",
      error: null,
      updated_at: "2026-11-29T11:59:50Z",
      scenes_ready: ready,
      scenes_total: 6,
      video: null,
      quality: null,
      publications: [],
    }],
  });

  test("a unit waiting for an account shows each deferral with its reason and when it is tried again", () => {
    const waiting = status("deferred", 6);
    const publication = { platform: "youtube", deferred_reason: null, not_before: null, privacy_status: null, skip_reason: null };
    waiting.units[0]!.publications = [
      { ...publication, status: "published", external_id: "vid-a", privacy_status: "private" },
      { ...publication, status: "deferred", external_id: null, deferred_reason: "quota_spent", not_before: "2026-11-30T08:00:00Z" },
      { ...publication, status: "deferred", external_id: null, deferred_reason: "needs_reconnect" },
      { ...publication, platform: "facebook", status: "skipped", external_id: null, skip_reason: "the video lasts 95.0 s; Facebook Reels last 3 to 90 s" },
    ];
    const row = formatRunStatus(waiting, Date.parse("2026-11-30T01:00:00Z"), 400).find((line) => line.startsWith(RUN.slice(0, 8)))!;
    expect(row).toContain("deferred");
    expect(row).toContain(
      "youtube vid-a (private), youtube deferred (quota_spent) until 2026-11-30T08:00Z (in 7h), " +
        "youtube deferred (needs_reconnect) until its account is reconnected, " +
        "facebook skipped (the video lasts 95.0 s; Facebook Reels last 3 to 90 s)",
    );
  });

  test("on a terminal the live view redraws its block in place", () => {
    const tty = screen(true);
    const view = new ProgressView(tty, now);
    view.update(status("media", 1), now + 1000);
    view.update(status("media", 2), now + 2000);
    expect(tty.chunks[0]).not.toContain("\x1b[");
    expect(tty.chunks[0]).toContain(`\n  ${"tech-explained".padEnd(18)} media scenes 1/6 (11s)\n`);
    // Two lines were drawn (header + one dimension): go back up two lines and clear, then redraw.
    expect(tty.chunks[1]).toStartWith("\x1b[2F\x1b[J");
    expect(tty.chunks[1]).toContain("scenes 2/6");
  });

  test("a terminal that reports no width still gets whole lines", () => {
    const pty = { ...screen(true), columns: 0 };
    new ProgressView(pty, now).update(status("media", 1), now);
    expect(pty.chunks[0]).toContain(`run ${RUN}  running  0s\n`);
  });

  test("elsewhere it appends plain lines, only when something changed", () => {
    const pipe = screen(false);
    const view = new ProgressView(pipe, now);
    view.update(status("media", 1), now + 1000);
    view.update(status("media", 1), now + 5000);
    view.update(status("render", 6), now + 9000);
    expect(pipe.text()).not.toContain("\x1b[");
    expect(pipe.chunks.length).toBe(2);
    expect(pipe.chunks[1]).toContain("render");
  });
});
