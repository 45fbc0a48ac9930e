/**
 * The doctor's `database/engine role` line against the local Postgres: ok on a database as the
 * migrations leave it, a warning naming each privilege the engine role holds beyond docs/reference/roles.md
 * (TEMP for PUBLIC as Postgres creates a database, an mdame table without row-level security, a role
 * attribute, a membership, session defaults of its own, DB_URL as another role), with the statement
 * that fixes it, and on every
 * line, once, what no privilege can take away: the role may change its own password.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import postgres from "postgres";
import { checkDatabase, ENGINE_ROLE_RESIDUAL } from "../../cli/doctor/database.ts";
import { resolveDoctorConfig } from "../../cli/doctor/config.ts";
import type { CheckResult } from "../../cli/doctor/check.ts";
import * as db from "../../stack/db.ts";
import { loadOrCreateSecrets } from "../../stack/stack-env.ts";
import { LOCAL_DB_URL, localEngineDbUrl } from "../../shared/config/local-stack.ts";

let admin: postgres.Sql;
let engineUrl: string;

beforeAll(async () => {
  await db.ensureRunning(() => {});
  await db.reset({ log: () => {} });
  admin = postgres(LOCAL_DB_URL, { max: 1, onnotice: () => {} });
  engineUrl = localEngineDbUrl(loadOrCreateSecrets().ENGINE_DB_PASSWORD);
}, 60_000);

afterAll(async () => {
  await admin?.end({ timeout: 2 });
}, 60_000);

/** The doctor's engine role line for DB_URL (no stack.env: only what is given here). */
async function engineRoleLine(dbUrl = engineUrl): Promise<CheckResult> {
  const config = resolveDoctorConfig({ DB_URL: dbUrl, ENV: "dev" }, join(import.meta.dir, "no-such-stack.env"));
  const results = await checkDatabase(config, 10_000);
  const line = results.find((r) => r.name === "engine role");
  if (!line) throw new Error(`no engine role line among: ${results.map((r) => `${r.status} ${r.name}: ${r.message}`).join(" | ")}`);
  return line;
}

/** Runs `change` as the superuser, the doctor while it holds, and `undo` whatever happened. */
async function whileChanged(change: string, undo: string, dbUrl = engineUrl): Promise<CheckResult> {
  await admin.unsafe(change);
  try {
    return await engineRoleLine(dbUrl);
  } finally {
    await admin.unsafe(undo);
  }
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("doctor: the engine role", () => {
  test("is ok on a database as the migrations leave it, and still states the one thing it can do", async () => {
    const line = await engineRoleLine();
    expect(line.status).toBe("ok");
    expect(line.message).toMatch(
      /^mdame_engine may only call the RPCs \(no TEMP or CREATE, no role attributes, memberships or session defaults; row-level security on all \d+ mdame tables\)\. /,
    );
    expect(occurrences(line.message, ENGINE_ROLE_RESIDUAL)).toBe(1);
    expect(ENGINE_ROLE_RESIDUAL).toContain("change its own password");
  }, 30_000);

  test("warns when PUBLIC keeps TEMP on the database, as Postgres creates every database", async () => {
    const line = await whileChanged("grant temporary on database postgres to public", "revoke temporary on database postgres from public");
    expect(line.status).toBe("warn");
    expect(line.message).toStartWith(
      "mdame_engine can do more than docs/reference/roles.md lists: it may create temporary tables (TEMP on database postgres). ",
    );
    expect(occurrences(line.message, ENGINE_ROLE_RESIDUAL)).toBe(1);
    expect(line.fix).toBe('revoke temporary on database "postgres" from public, mdame_engine;');
  }, 30_000);

  test("warns about a table of the engine without row-level security, naming it", async () => {
    const line = await whileChanged("create table mdame.doctor_probe (id integer)", "drop table mdame.doctor_probe");
    expect(line.status).toBe("warn");
    expect(line.message).toContain("row-level security is off on mdame.doctor_probe");
    expect(line.fix).toBe('alter table mdame."doctor_probe" enable row level security;');
    expect(occurrences(line.message, ENGINE_ROLE_RESIDUAL)).toBe(1);
  }, 30_000);

  test("warns about role attributes and memberships, each with its undo", async () => {
    const line = await whileChanged(
      "alter role mdame_engine createdb createrole; grant anon to mdame_engine",
      "alter role mdame_engine nocreatedb nocreaterole; revoke anon from mdame_engine",
    );
    expect(line.status).toBe("warn");
    expect(line.message).toContain("it has createrole, createdb; it is a member of anon");
    expect(line.fix).toBe('alter role mdame_engine nocreaterole nocreatedb; revoke "anon" from mdame_engine;');
    expect(occurrences(line.message, ENGINE_ROLE_RESIDUAL)).toBe(1);
  }, 30_000);

  test("warns about session defaults set on the role, which reach every component", async () => {
    const line = await whileChanged("alter role mdame_engine set statement_timeout = '1h'", "alter role mdame_engine reset all");
    expect(line.status).toBe("warn");
    expect(line.message).toContain("it has session defaults of its own (statement_timeout=1h)");
    expect(line.fix).toBe('alter role mdame_engine reset all; alter role mdame_engine in database "postgres" reset all;');
    expect(occurrences(line.message, ENGINE_ROLE_RESIDUAL)).toBe(1);
  }, 30_000);

  test("warns when DB_URL connects as another role than the engine's", async () => {
    const line = await engineRoleLine(LOCAL_DB_URL);
    expect(line.status).toBe("warn");
    expect(line.message).toContain("DB_URL connects as postgres, not mdame_engine, so the components would hold postgres's privileges");
    expect(line.fix).toBe("point DB_URL at mdame_engine (docs/reference/roles.md)");
  }, 30_000);

  test("is ok again once each change is undone", async () => {
    expect((await engineRoleLine()).status).toBe("ok");
  }, 30_000);
});
