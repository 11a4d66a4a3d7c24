import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Schema } from './schema.js';
import { chunks } from '../../lib/chunks.js';
import { isPostgres } from './dialect.js';

type Db = Kysely<Schema>;

/** Rows per statement on SQLite: 100 rows × ≤ 10 columns is far below its parameter limit. */
export const ROWS_PER_INSERT = 100;

/**
 * Rows per statement on PostgreSQL: a worker batch's 1,000 events in one statement per table
 * instead of ten, each a round trip waited on (1,000 rows × ≤ 10 columns is far below its
 * 65,535 parameters).
 */
export const POSTGRES_ROWS_PER_INSERT = 1000;

/**
 * A multi-row INSERT into fixed columns, compiled by Kysely once per row count up to
 * ROWS_PER_INSERT (larger ones, PostgreSQL only, repeat the one-row statement's values) and then
 * executed with fresh parameters. Building and compiling the statement through the query builder on every
 * commit (a value node per cell) was about a tenth of the batch endpoint's CPU profile, yet the
 * SQL only depends on the table, the columns, the row count and the dialect. Both dialects number
 * the parameters row by row in column order, which is how `execute` expects the values.
 */
export class MultiRowInsert {
  /** Per dialect (a Kysely instance and its transactions share one adapter): row count → SQL. */
  private readonly cache = new WeakMap<object, Map<number, string>>();

  constructor(
    private readonly table: keyof Schema & string,
    private readonly columns: readonly string[],
    private readonly options: { ignoreConflicts?: boolean; returning?: readonly string[] } = {},
  ) {}

  /**
   * Inserts `rows`, each an array of values in `columns` order, in statements of ROWS_PER_INSERT
   * rows (POSTGRES_ROWS_PER_INSERT on PostgreSQL);
   * returns the `returning` columns of the inserted rows (none without that option).
   */
  async execute(db: Db, rows: ReadonlyArray<readonly unknown[]>): Promise<Array<Record<string, unknown>>> {
    const width = this.columns.length;
    return this.run(db, rows.length, (start, end) => {
      // Sized once and filled by index (no regrowth; Array.prototype.flat showed in the profile).
      const values = new Array<unknown>((end - start) * width);
      let at = 0;
      for (let r = start; r < end; r++) {
        const row = rows[r]!;
        if (row.length !== width) throw new Error(`expected ${width} values in row ${r}, got ${row.length}`);
        for (let c = 0; c < width; c++) values[at++] = row[c];
      }
      return values;
    });
  }

  /**
   * Inserts `count` rows given as one flat array of values, row after row in `columns` order.
   * When they fit one statement the array itself is bound, not a copy: it must not change until
   * the returned promise settles.
   */
  async executeFlat(db: Db, values: readonly unknown[], count: number): Promise<void> {
    const width = this.columns.length;
    if (values.length !== count * width) throw new Error(`expected ${count * width} values, got ${values.length}`);
    await this.run(db, count, (start, end) => (start === 0 && end === count ? values : values.slice(start * width, end * width)));
  }

  /**
   * The one chunking loop: `chunk(start, end)` gives the parameters of rows `start` to `end`
   * (exclusive), row after row in `columns` order.
   */
  private async run(
    db: Db,
    count: number,
    chunk: (start: number, end: number) => readonly unknown[],
  ): Promise<Array<Record<string, unknown>>> {
    const returned: Array<Record<string, unknown>> = [];
    const perStatement = isPostgres(db) ? POSTGRES_ROWS_PER_INSERT : ROWS_PER_INSERT;
    for (let start = 0; start < count; start += perStatement) {
      const end = Math.min(count, start + perStatement);
      // Not CompiledQuery.raw(sql, parameters): it freezes the parameter array, which may be the
      // caller's own (executeFlat). Kysely and both drivers only read it.
      const query: CompiledQuery = { ...CompiledQuery.raw(this.sql(db, end - start)), parameters: chunk(start, end) };
      const result = await db.executeQuery<Record<string, unknown>>(query);
      if (this.options.returning) for (const row of result.rows) returned.push(row);
    }
    return returned;
  }

  private sql(db: Db, count: number): string {
    const adapter = db.getExecutor().adapter;
    let byCount = this.cache.get(adapter);
    if (!byCount) this.cache.set(adapter, (byCount = new Map()));
    let text = byCount.get(count);
    if (text !== undefined) return text;
    if (count <= ROWS_PER_INSERT) {
      text = this.compile(db, count);
    } else {
      // Compiling a thousand rows through the builder costs milliseconds (a node per cell): the
      // one-row statement's values list is repeated instead, numbered as the builder numbers it.
      const one = byCount.get(1) ?? this.compile(db, 1);
      const width = this.columns.length;
      const tuple = `(${Array.from({ length: width }, (_, c) => `$${c + 1}`).join(', ')})`;
      const at = one.indexOf(tuple);
      if (!(isPostgres(db) && at >= 0 && one.indexOf(tuple, at + 1) < 0)) throw new Error(`MultiRowInsert: unexpected SQL ${one}`);
      const tuples = new Array<string>(count);
      for (let r = 0; r < count; r++) {
        let row = `($${r * width + 1}`;
        for (let c = 1; c < width; c++) row += `, $${r * width + c + 1}`;
        tuples[r] = `${row})`;
      }
      text = one.slice(0, at) + tuples.join(', ') + one.slice(at + tuple.length);
    }
    // Every count up to ROWS_PER_INSERT is kept (compiling them is the cost this class avoids);
    // of the larger ones, built cheaply by repetition, only a full statement's.
    if (count <= ROWS_PER_INSERT || count === POSTGRES_ROWS_PER_INSERT) byCount.set(count, text);
    return text;
  }

  private compile(db: Db, count: number): string {
    const placeholder = Object.fromEntries(this.columns.map((c) => [c, null]));
    // The builder is typed per table; the column list is checked by the callers' row shapes.
    const query = db.insertInto(this.table).values(Array.from({ length: count }, () => placeholder) as never);
    const conflicts = this.options.ignoreConflicts ? query.onConflict((oc) => oc.doNothing()) : query;
    return (this.options.returning ? conflicts.returning(this.options.returning as never) : conflicts).compile().sql;
  }
}

/**
 * `values` padded (by repeating its first value) to the next power of two, at most `max`, for an
 * `in (…)` list: SQL with a list of every length is a new statement to compile and prepare for
 * each batch, while padded lists keep to a dozen lengths that stay in the statement cache. A
 * repeated value changes no `in` result. Lists longer than `max` are returned as they are.
 */
export function padInList<T>(values: T[], max: number): T[] {
  const n = values.length;
  if (n <= 1 || n >= max) return values;
  let size = 2;
  while (size < n) size *= 2;
  if (size > max) size = max;
  if (size === n) return values;
  const padded = values.slice();
  for (let i = n; i < size; i++) padded.push(values[0]!);
  return padded;
}

/**
 * A query whose parameters are a few fixed values followed by one `in (…)` list, built by Kysely
 * once per dialect and list length and then executed with fresh parameters (the list padded with
 * `padInList`). Compiling a 500-value list through the query builder for every batch showed in
 * the worker's profile. The first compile checks that the parameters come out as `fixed` then
 * `list`, in that order, which is what later executions pass.
 */
export class InListQuery<F extends unknown[], V, R> {
  private readonly cache = new WeakMap<object, Map<number, string>>();

  constructor(
    private readonly build: (db: Db, fixed: F, list: V[]) => Compilable<R>,
    private readonly maxList: number,
  ) {}

  async execute(db: Db, fixed: F, values: V[]): Promise<R[]> {
    const rows: R[] = [];
    for await (const result of this.statements(db, fixed, values)) for (const row of result.rows) rows.push(row);
    return rows;
  }

  /** For a write (update or delete): how many rows it changed, over all its statements. */
  async executeCountingRows(db: Db, fixed: F, values: V[]): Promise<number> {
    let changed = 0;
    for await (const result of this.statements(db, fixed, values)) changed += Number(result.numAffectedRows ?? 0n);
    return changed;
  }

  /**
   * One statement per `maxList` values, executed in turn; on PostgreSQL per
   * POSTGRES_ROWS_PER_INSERT when that is more: a worker batch's list in one round trip.
   */
  private async *statements(db: Db, fixed: F, values: V[]) {
    const max = isPostgres(db) ? Math.max(this.maxList, POSTGRES_ROWS_PER_INSERT) : this.maxList;
    for (const chunk of chunks(values, max)) {
      const list = padInList(chunk, max);
      const parameters = [...fixed, ...list];
      yield await db.executeQuery<R>(CompiledQuery.raw(this.sql(db, fixed, list, parameters), parameters));
    }
  }

  private sql(db: Db, fixed: F, list: V[], parameters: unknown[]): string {
    const adapter = db.getExecutor().adapter;
    let byLength = this.cache.get(adapter);
    if (!byLength) this.cache.set(adapter, (byLength = new Map()));
    let text = byLength.get(list.length);
    if (text === undefined) {
      const compiled = this.build(db, fixed, list).compile();
      if (compiled.parameters.length !== parameters.length || compiled.parameters.some((p, i) => p !== parameters[i])) {
        throw new Error('InListQuery: the query must take its fixed values, then the list, as its only parameters');
      }
      text = compiled.sql;
      byLength.set(list.length, text);
    }
    return text;
  }
}
