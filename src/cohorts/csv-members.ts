/**
 * Static cohort uploads, read as PostHog's CohortSerializer `_calculate_static_by_csv` reads them:
 * the file is decoded as UTF-8, cut with Python's `splitlines()` and parsed with the `csv` module's
 * excel dialect. A file with one non-empty column is a list of distinct ids (unless its header
 * says person_id or email); a wider file must name its id column. Problems are reported under
 * `attr: "csv"`.
 */
import { parseError, validationError } from '../posthog/errors.js';
import { pythonStrip } from '../posthog/python-values.js';

export type CsvIdType = 'person_id' | 'distinct_id' | 'email';

/** The ids a file lists and what kind of id they are. */
export interface CsvMembers {
  idType: CsvIdType;
  ids: string[];
}

const PERSON_ID_HEADERS = ['person_id', 'person-id', 'person .id'];
const DISTINCT_ID_HEADERS = ['distinct_id', 'distinct-id'];
const EMAIL_HEADERS = ['email', 'e-mail'];

const MESSAGES = {
  empty: 'CSV file is empty. Please upload a CSV file with at least one row of data.',
  missingColumn: (columns: string) =>
    `Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' (PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: ${columns}`,
  noIds:
    'CSV file contains no valid person IDs, distinct IDs, or email addresses. Please ensure your file has data rows with person IDs, distinct IDs, or email addresses.',
  encoding: 'CSV file encoding is not supported. Please save your file as UTF-8 and try again.',
};

const csvError = (detail: string) => validationError(detail, 'csv');

/** Python's `str.splitlines()`: every line boundary it knows, no empty line after a final one. */
function splitLines(text: string): string[] {
  // eslint-disable-next-line no-control-regex -- str.splitlines() splits at these control characters
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

type State = 'record' | 'field' | 'unquoted' | 'quoted' | 'quote-in-quoted';

/**
 * Python's `csv.reader` (excel dialect, not strict) over lines without their line ends: a blank
 * line is an empty row; a quote opens a quoted cell only at a cell's start; `""` inside quotes is a
 * quote; text after a closing quote is kept; an open quote carries on into the next line.
 */
function* csvRows(lines: string[]): Generator<string[]> {
  let row: string[] = [];
  let cell = '';
  let state: State = 'record';
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (const line of lines) {
    for (const ch of line) {
      if (state === 'record') state = 'field';
      if (state === 'field') {
        if (ch === '"') state = 'quoted';
        else if (ch === ',') endCell();
        else {
          cell += ch;
          state = 'unquoted';
        }
      } else if (state === 'unquoted') {
        if (ch === ',') {
          endCell();
          state = 'field';
        } else cell += ch;
      } else if (state === 'quoted') {
        if (ch === '"') state = 'quote-in-quoted';
        else cell += ch;
      } else if (ch === '"') {
        cell += '"';
        state = 'quoted';
      } else if (ch === ',') {
        endCell();
        state = 'field';
      } else {
        cell += ch;
        state = 'unquoted';
      }
    }
    if (state === 'quoted') continue; // the quoted cell goes on in the next line
    if (state !== 'record') endCell();
    yield row;
    row = [];
    state = 'record';
  }
  if (state === 'quoted') {
    endCell();
    yield row;
  }
}

function decode(data: Buffer | string): string {
  if (typeof data === 'string') return data;
  try {
    // Python's utf-8 codec keeps a byte-order mark as a character, so a BOM'd header is not recognised.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    throw csvError(MESSAGES.encoding);
  }
}

const headerIn = (headers: string[], cell: string) => headers.includes(pythonStrip(cell).toLowerCase());

/** Non-empty stripped first cells of the data rows (`_extract_ids_single_column`). */
function firstCells(rows: Iterable<string[]>): string[] {
  const ids: string[] = [];
  for (const row of rows) {
    const id = row.length > 0 ? pythonStrip(row[0]!) : '';
    if (id !== '') ids.push(id);
  }
  return ids;
}

function singleColumn(header: string[], rest: Iterable<string[]>): CsvMembers {
  const first = header[0] ?? '';
  if (headerIn(PERSON_ID_HEADERS, first)) return { idType: 'person_id', ids: firstCells(rest) };
  if (headerIn(EMAIL_HEADERS, first)) return { idType: 'email', ids: firstCells(rest) };
  // Without a recognised header the first row is data too (PostHog's backwards compatibility).
  return { idType: 'distinct_id', ids: firstCells([header, ...rest]) };
}

/** The id column of a wider file: person_id first, then distinct_id, then email. */
function idColumn(header: string[]): { index: number; idType: CsvIdType } | undefined {
  for (const [headers, idType] of [
    [PERSON_ID_HEADERS, 'person_id'],
    [DISTINCT_ID_HEADERS, 'distinct_id'],
    [EMAIL_HEADERS, 'email'],
  ] as const) {
    const index = header.findIndex((cell) => headerIn(headers, cell));
    if (index >= 0) return { index, idType };
  }
  return undefined;
}

function multiColumn(header: string[], rest: Iterable<string[]>): CsvMembers {
  const column = idColumn(header);
  if (!column) {
    const named = header.filter((cell) => pythonStrip(cell) !== '');
    throw csvError(MESSAGES.missingColumn(named.length > 0 ? named.join(', ') : 'none'));
  }
  const ids: string[] = [];
  for (const row of rest) {
    if (row.length <= column.index) continue; // too short a row is skipped
    const id = pythonStrip(row[column.index]!);
    if (id !== '') ids.push(id);
  }
  return { idType: column.idType, ids };
}

/** The members an uploaded file lists; a 400 under `csv` when PostHog would refuse the file. */
export function membersFromCsv(data: Buffer | string): CsvMembers {
  const rows = [...csvRows(splitLines(decode(data)))];
  const start = rows.findIndex((row) => row.length > 0); // blank rows before the header are skipped
  if (start < 0) throw csvError(MESSAGES.empty);
  const header = rows[start]!;
  const rest = rows.slice(start + 1);
  const single = header.filter((cell) => pythonStrip(cell) !== '').length <= 1;
  const members = single ? singleColumn(header, rest) : multiColumn(header, rest);
  if (members.ids.length === 0) throw csvError(MESSAGES.noIds);
  return members;
}

export interface MultipartPart {
  name: string;
  filename?: string;
  value: Buffer;
}

/** Python's `cgi.valid_boundary`, which Django's multipart parser checks the boundary with. */
const VALID_BOUNDARY = /^[ -~]{0,200}[!-~]$/;

/** DRF's answer to a body its MultiPartParser cannot read (Django's MultiPartParserError). */
const multipartError = (reason: string) => parseError(`Multipart form parse error - ${reason}`);

/**
 * A minimal multipart/form-data reader: enough for a CSV file and a few text fields. A body that
 * is not multipart (no usable boundary, no boundary line, no closing boundary) is a 400
 * parse_error, as DRF answers it, rather than a form without fields.
 */
export function parseMultipart(body: Buffer, contentType: string): MultipartPart[] {
  const match = /;\s*boundary=(?:"([^"]*)"|([^;]*))/i.exec(contentType);
  const given = match ? (match[1] ?? match[2]!.trim()) : undefined;
  if (given === undefined || !VALID_BOUNDARY.test(given)) throw multipartError(`Invalid boundary in multipart: ${given ?? 'None'}`);
  if (body.length === 0) return []; // Django reads an empty body as an empty form
  const boundary = Buffer.from(`--${given}`);
  const parts: MultipartPart[] = [];
  let start = body.indexOf(boundary);
  if (start < 0) throw multipartError('no boundary line in the body');
  for (;;) {
    const after = start + boundary.length;
    if (body.subarray(after, after + 2).toString() === '--') return parts; // the closing boundary
    const next = body.indexOf(boundary, after);
    if (next < 0) throw multipartError('the closing boundary is missing');
    const chunk = body.subarray(after, next);
    const headerEnd = chunk.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = chunk.subarray(0, headerEnd).toString('utf8');
      let value = chunk.subarray(headerEnd + 4);
      if (value.subarray(-2).toString() === '\r\n') value = value.subarray(0, -2);
      // Parameters of Content-Disposition: `name` is not the tail of `filename`.
      const name = /;\s*name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /;\s*filename="([^"]*)"/i.exec(headers)?.[1];
      if (name !== undefined) parts.push({ name, value, ...(filename !== undefined ? { filename } : {}) });
    }
    start = next;
  }
}
