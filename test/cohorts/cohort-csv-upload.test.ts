import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { cohortsPath, storePerson } from '../flags/flag-helpers.js';

const server = useTestServer();

/** A real multipart upload of `csv` as the file `people.csv`, beside text fields. */
async function upload(csv: string | Uint8Array, options: { fields?: Record<string, string>; path?: string; method?: string } = {}) {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? { name: 'Upload', is_static: 'true' })) form.set(name, value);
  form.set('csv', new Blob([csv], { type: 'text/csv' }), 'people.csv');
  const response = await fetch(`${server.url}${options.path ?? cohortsPath(server)}`, {
    method: options.method ?? 'POST',
    headers: { authorization: `Bearer ${server.key}` },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function uploaded(csv: string) {
  const res = await upload(csv);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const csvError = (detail: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr: 'csv' });

describe('static cohort CSV uploads (CohortSerializer._calculate_static_by_csv)', () => {
  it('reads person uuids from a person_id column, whatever its case, or PostHog export "Person .id"', async () => {
    const a = await storePerson(server, ['pid-a']);
    const b = await storePerson(server, ['pid-b']);
    expect((await uploaded(`name,Person_ID\nAnn,${a.uuid}\nBob, ${b.uuid.toUpperCase()} \nshort\n`)).count).toBe(2);
    expect((await uploaded(`"Person .id",email\n${a.uuid},x@y.io\n`)).count).toBe(1);
  });

  it('reads distinct ids from a distinct_id or distinct-id column, preferring person_id when both exist', async () => {
    const c = await storePerson(server, ['did-c']);
    await storePerson(server, ['did-d']);
    expect((await uploaded('email,distinct-id\nc@x.io,did-c\nd@x.io,"did-d"\n')).count).toBe(2);
    expect((await uploaded(`distinct_id,person_id\ndid-d,${c.uuid}\n`)).count).toBe(1);
  });

  it('matches an email column against the email property', async () => {
    await storePerson(server, ['mail-1'], { email: 'one@example.com' });
    await storePerson(server, ['mail-2'], { email: 'two@example.com' });
    expect((await uploaded('E-mail,plan\none@example.com,pro\ntwo@example.com,free\nnobody@example.com,free\n')).count).toBe(2);
    expect((await uploaded('email\none@example.com\n')).count).toBe(1);
  });

  it('takes a headerless single column as distinct ids, first row included, blank rows skipped', async () => {
    await storePerson(server, ['solo-1']);
    await storePerson(server, ['solo-2']);
    expect((await uploaded('\n\nsolo-1\r\n\r\n  solo-2  \nunknown\n')).count).toBe(2);
    // A lone "distinct_id" header is not one (PostHog keeps that for backwards compatibility): it is an id.
    await storePerson(server, ['distinct_id']);
    expect((await uploaded('distinct_id\nsolo-1\n')).count).toBe(2);
  });

  it('refuses a multi-column file without an id column, naming its columns', async () => {
    const res = await upload('name, age ,\nAnn,3,\n');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      csvError(
        "Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' (PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: name,  age ",
      ),
    );
  });

  it('refuses empty files, files without ids and files that are not UTF-8', async () => {
    expect((await upload('')).body).toEqual(csvError('CSV file is empty. Please upload a CSV file with at least one row of data.'));
    expect((await upload('\n\n')).body).toEqual(csvError('CSV file is empty. Please upload a CSV file with at least one row of data.'));
    const noIds =
      'CSV file contains no valid person IDs, distinct IDs, or email addresses. Please ensure your file has data rows with person IDs, distinct IDs, or email addresses.';
    expect((await upload('person_id\n\n  \n')).body).toEqual(csvError(noIds));
    expect((await upload('name,distinct_id\nAnn\n')).body).toEqual(csvError(noIds));
    expect((await upload(new Uint8Array([0x64, 0x69, 0xff, 0x0a]))).body).toEqual(
      csvError('CSV file encoding is not supported. Please save your file as UTF-8 and try again.'),
    );
  });

  it('adds an upload to an existing static cohort on PATCH, and ignores it on a property cohort', async () => {
    await storePerson(server, ['later-1']);
    const later = await storePerson(server, ['later-2']);
    const cohort = await uploaded('later-1\n');
    const patched = await upload(`person_id\n${later.uuid}\n`, { fields: {}, path: cohortsPath(server, `${cohort.id}/`), method: 'PATCH' });
    expect(patched.status).toBe(200);
    expect(patched.body.count).toBe(2);
    const dynamic = await upload('', { fields: { name: 'Dynamic' } });
    expect(dynamic.status).toBe(201);
    expect(dynamic.body.is_static).toBe(false);
  });
});
