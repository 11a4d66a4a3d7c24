/**
 * Static cohort uploads: the distinct ids of a CSV file (PostHog's cohort CSV import), and the
 * one multipart field it arrives in. A header naming `distinct_id` (or `person_distinct_id`)
 * selects that column; without one, the first column of every row is a distinct id.
 */

/** One CSV line split into cells, honouring double-quoted cells. */
function cells(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        current += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((c) => c.trim());
}

export function distinctIdsFromCsv(text: string): string[] {
  const rows = text.replace(/^\uFEFF/, '').split(/\r?\n/).filter((line) => line.trim() !== '').map(cells);
  if (rows.length === 0) return [];
  const header = rows[0]!.map((c) => c.toLowerCase());
  const column = header.findIndex((c) => c === 'distinct_id' || c === 'person_distinct_id');
  const data = column >= 0 ? rows.slice(1) : rows;
  const index = column >= 0 ? column : 0;
  return [...new Set(data.map((row) => row[index] ?? '').filter((id) => id !== ''))];
}

export interface MultipartPart {
  name: string;
  filename?: string;
  value: Buffer;
}

/** A minimal multipart/form-data reader: enough for a CSV file and a few text fields. */
export function parseMultipart(body: Buffer, contentType: string): MultipartPart[] {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!match) return [];
  const boundary = Buffer.from(`--${match[1] ?? match[2]}`);
  const parts: MultipartPart[] = [];
  let start = body.indexOf(boundary);
  while (start >= 0) {
    const next = body.indexOf(boundary, start + boundary.length);
    if (next < 0) break;
    const chunk = body.subarray(start + boundary.length, next);
    const headerEnd = chunk.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = chunk.subarray(0, headerEnd).toString('utf8');
      let value = chunk.subarray(headerEnd + 4);
      if (value.subarray(-2).toString() === '\r\n') value = value.subarray(0, -2);
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      if (name !== undefined) parts.push({ name, value, ...(filename !== undefined ? { filename } : {}) });
    }
    start = next;
  }
  return parts;
}
