/**
 * A body sent as multipart/form-data that is not multipart is DRF's ParseError ("Multipart form
 * parse error - …", 400 parse_error), and stores nothing; before, it made a cohort without fields.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { cohortsPath, storePerson } from '../flags/flag-helpers.js';

const server = useTestServer();

const cohortRows = async () =>
  Number(
    (
      await server.running.ctx.database.db
        .selectFrom('cohorts')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst()
    )?.n ?? 0,
  );

const post = (contentType: string, body: string, path = cohortsPath(server), method = 'POST') =>
  server.request(path, { method, rawBody: body, headers: { 'content-type': contentType } });

const parseError = (reason: string) => ({
  type: 'invalid_request',
  code: 'parse_error',
  detail: `Multipart form parse error - ${reason}`,
  attr: null,
});

const field = (name: string, value: string) => `--X\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

describe('malformed multipart cohort bodies', () => {
  it('answers 400 parse_error and stores nothing', async () => {
    const before = await cohortRows();
    const cases: [string, string, string][] = [
      ['multipart/form-data', field('name', 'No boundary') + '--X--\r\n', 'Invalid boundary in multipart: None'],
      ['multipart/form-data; boundary=', field('name', 'Empty boundary') + '--X--\r\n', 'Invalid boundary in multipart: '],
      ['multipart/form-data; boundary=X', 'name=garbage&is_static=true', 'no boundary line in the body'],
      ['multipart/form-data; boundary=X', field('name', 'Unterminated'), 'the closing boundary is missing'],
      [
        'multipart/form-data; boundary=X',
        '--X\r\nContent-Disposition: form-data; name="name"\r\n\r\nCut short',
        'the closing boundary is missing',
      ],
    ];
    for (const [contentType, body, reason] of cases) {
      const res = await post(contentType, body);
      expect(res.status, `${contentType} ${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body).toEqual(parseError(reason));
    }
    expect(await cohortRows()).toBe(before);
  });

  it('refuses a malformed upload on PATCH too, leaving the cohort as it was', async () => {
    await storePerson(server, ['multipart-1']);
    const created = await post('multipart/form-data; boundary=X', field('name', 'Kept') + field('is_static', 'true') + '--X--\r\n');
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'Kept', is_static: true });

    const res = await post(
      'multipart/form-data; boundary=X',
      field('name', 'Renamed'),
      cohortsPath(server, `${created.body.id}/`),
      'PATCH',
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual(parseError('the closing boundary is missing'));
    expect((await server.request(cohortsPath(server, `${created.body.id}/`))).body.name).toBe('Kept');
  });

  it('reads a well-formed form, a quoted boundary and an empty form', async () => {
    const quoted = await post('multipart/form-data; boundary="X"', `preamble\r\n${field('name', 'Quoted')}--X--\r\n`);
    expect(quoted.status, quoted.text).toBe(201);
    expect(quoted.body).toMatchObject({ name: 'Quoted', is_static: false });
    // A file part whose filename comes before its name is still the `csv` upload.
    await storePerson(server, ['file-first']);
    const fileFirst = await post(
      'multipart/form-data; boundary=X',
      `${field('name', 'File first')}${field('is_static', 'true')}--X\r\nContent-Disposition: form-data; filename="people.csv"; name="csv"\r\n\r\nfile-first\r\n--X--\r\n`,
    );
    expect(fileFirst.status, fileFirst.text).toBe(201);
    expect(fileFirst.body).toMatchObject({ name: 'File first', is_static: true, count: 1 });
    const empty = await post('multipart/form-data; boundary=X', '--X--\r\n');
    expect(empty.status, empty.text).toBe(201);
    expect(empty.body).toMatchObject({ name: '', is_static: false });
  });
});
