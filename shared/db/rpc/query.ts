/**
 * The one way RPC rows enter TypeScript (docs/conventions.md, "Workers and tasks": one function per RPC returning
 * a Zod-parsed row). Every module under shared/db/rpc/ builds its calls on these three: the query
 * runs, an engine error (MD*** SQLSTATE) is rethrown as its class (shared/db/errors.ts), and each
 * row is parsed by the RPC's row schema, so a row that breaks its contract fails here, named,
 * instead of deep inside a stage.
 */
import type { z } from "zod";
import { mapDbError } from "../errors.ts";

/** A row the database returned that its schema refuses: a migration and its TypeScript disagree. */
export class RowContractError extends Error {
  constructor(readonly rpc: string, readonly issues: readonly z.core.$ZodIssue[]) {
    super(`mdame.${rpc} returned a row that breaks its contract: ${issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ")}`);
    this.name = "RowContractError";
  }
}

async function run(query: PromiseLike<readonly unknown[]>): Promise<readonly unknown[]> {
  try {
    return await query;
  } catch (error) {
    throw mapDbError(error);
  }
}

function parse<S extends z.ZodType>(rpc: string, schema: S, row: unknown): z.infer<S> {
  const parsed = schema.safeParse(row);
  if (!parsed.success) throw new RowContractError(rpc, parsed.error.issues);
  return parsed.data;
}

/** Every row of a set-returning RPC, parsed. */
export async function manyRows<S extends z.ZodType>(rpc: string, schema: S, query: PromiseLike<readonly unknown[]>): Promise<z.infer<S>[]> {
  return (await run(query)).map((row) => parse(rpc, schema, row));
}

/** The row of an RPC that returns at most one; null when it returned none (or a null composite). */
export async function maybeRow<S extends z.ZodType>(rpc: string, schema: S, query: PromiseLike<readonly unknown[]>): Promise<z.infer<S> | null> {
  const rows = await run(query);
  if (rows.length > 1) throw new Error(`mdame.${rpc} returned ${rows.length} rows where at most one was expected`);
  const [row] = rows;
  if (row === undefined || isNullComposite(row)) return null;
  return parse(rpc, schema, row);
}

/** The row of an RPC that always returns exactly one. */
export async function oneRow<S extends z.ZodType>(rpc: string, schema: S, query: PromiseLike<readonly unknown[]>): Promise<z.infer<S>> {
  const row = await maybeRow(rpc, schema, query);
  if (row === null) throw new Error(`mdame.${rpc} returned no row`);
  return row;
}

/**
 * A compare-and-swap write's answer (a key rotation's reseal): the row stored now, and whether the
 * write took, i.e. whether what is stored is what this call wrote.
 */
export async function swapped<S extends z.ZodType>(
  rpc: string,
  schema: S,
  query: PromiseLike<readonly unknown[]>,
  took: (row: z.infer<S>) => boolean,
): Promise<{ row: z.infer<S>; swapped: boolean }> {
  const row = await oneRow(rpc, schema, query);
  return { row, swapped: took(row) };
}

/** `select * from f()` of a function returning a composite type gives one row of nulls when it returns null. */
function isNullComposite(row: unknown): boolean {
  return typeof row === "object" && row !== null && Object.values(row).every((value) => value === null);
}
