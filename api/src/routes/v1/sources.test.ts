import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EMBEDDING_CONFIG, LOCAL_EMBEDDING_HANDLE } from '@engram/integrations/archival';
import { startTestStack, type TestStack } from '@engram/testing';

/** The deprecated `/v1/sources` mirror of `/v1/folders`; client 1.x has no methods for it, so it is called over plain HTTP. */

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

const api = (path: string, init: RequestInit & { key?: string } = {}): Promise<JsonResponse> =>
  fetch(`${stack.baseUrl}/v1${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${init.key ?? stack.apiKey}`,
      ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}),
    },
  });

const send = (method: string, path: string, body: unknown) => api(path, { method, body: JSON.stringify(body) });

async function ok(response: JsonResponse): Promise<any> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text);
}

function uploadForm(name: string, text: string, type = 'text/plain'): FormData {
  const form = new FormData();
  form.append('file', new Blob([text], { type }), name);
  return form;
}

const uploadTo = (sourceId: string, name: string, text: string, query = '') =>
  api(`/sources/${sourceId}/upload${query}`, { method: 'POST', body: uploadForm(name, text) });

let sourceCount = 0;
const newSource = async (name = `source-${++sourceCount}-${Date.now()}`) =>
  ok(await send('POST', '/sources/', { name, embedding_config: LOCAL_EMBEDDING_CONFIG }));

describe('sources', () => {
  it('creates a source from an embedding config or handle, and refuses one with neither', async () => {
    const source = await newSource('reference');
    expect(source).toMatchObject({
      id: expect.stringMatching(/^source-[0-9a-f-]{36}$/),
      name: 'reference',
      embedding_config: LOCAL_EMBEDDING_CONFIG,
      vector_db_provider: 'native',
      organization_id: stack.tenant.organizationId,
    });
    const byHandle = await ok(await send('POST', '/sources/', { name: `by-handle-${Date.now()}`, embedding: LOCAL_EMBEDDING_HANDLE }));
    expect(byHandle.embedding_config).toEqual(LOCAL_EMBEDDING_CONFIG);

    const neither = await send('POST', '/sources/', { name: 'no-embedding' });
    expect(neither.status).toBe(422);
    expect((await neither.json()).detail[0]).toMatchObject({ loc: ['body', 'embedding_config'] });
  });

  it('lists every source unpaginated, oldest first, finds one by name, and updates and deletes it', async () => {
    const other = await stack.createTenant();
    const key = other.apiKey.key;
    const created = [];
    for (let index = 0; index < 3; index++) {
      created.push(await ok(await api('/sources/', { method: 'POST', key, body: JSON.stringify({ name: `s${index}`, embedding_config: LOCAL_EMBEDDING_CONFIG }) })));
    }
    const listed = await ok(await api('/sources/?limit=1', { key }));
    expect(listed.map((source: { id: string }) => source.id)).toEqual(created.map((source) => source.id));
    expect(await ok(await api('/sources/count', { key }))).toBe(3);

    const found = await api('/sources/name/s1', { key });
    expect(found.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await found.json()).toBe(created[1].id);
    expect((await api('/sources/name/nothing', { key })).status).toBe(404);

    const renamed = await ok(await api(`/sources/${created[1].id}`, { method: 'PATCH', key, body: JSON.stringify({ name: 's1-renamed', description: 'second' }) }));
    expect(renamed).toMatchObject({ name: 's1-renamed', description: 'second', vector_db_provider: 'native' });
    expect(await ok(await api(`/sources/${created[1].id}`, { key }))).toEqual(renamed);

    const deleted = await api(`/sources/${created[1].id}`, { method: 'DELETE', key });
    expect(deleted.status).toBe(200);
    expect(await deleted.text()).toBe('null');
    expect((await api(`/sources/${created[1].id}`, { key })).status).toBe(404);
    // Another organization's source is not found.
    expect((await api(`/sources/${created[0].id}`)).status).toBe(404);
  });

  it('uploads files, lists them oldest first with limit and after, and reads and deletes one', async () => {
    const source = await newSource();
    const first = await ok(await uploadTo(source.id, 'a.txt', 'alpha'));
    const second = await ok(await uploadTo(source.id, 'b.txt', 'bravo'));
    const third = await ok(await uploadTo(source.id, 'a.txt', 'again'));
    expect(first).toMatchObject({ source_id: source.id, file_name: `${source.name}/a.txt`, processing_status: 'parsing', file_type: 'text/plain' });
    expect(third.file_name).toBe(`${source.name}/a_(1).txt`);

    const files = await ok(await api(`/sources/${source.id}/files?check_status_updates=false`));
    expect(files.map((file: { id: string }) => file.id)).toEqual([first.id, second.id, third.id]);
    expect(files.map((file: { file_name: string }) => file.file_name)).toEqual(['a.txt', 'b.txt', 'a_(1).txt']);
    expect((await ok(await api(`/sources/${source.id}/files?limit=1&after=${first.id}`))).map((file: { id: string }) => file.id)).toEqual([second.id]);

    const skipped = await uploadTo(source.id, 'b.txt', 'bravo again', '?duplicate_handling=skip');
    expect(skipped.headers.get('x-upload-result')).toBe('skipped');
    expect((await skipped.json()).id).toBe(second.id);
    expect((await uploadTo(source.id, 'b.txt', 'x', '?duplicate_handling=error')).status).toBe(400);
    expect((await api(`/sources/${source.id}/upload`, { method: 'POST', body: uploadForm('tool.exe', 'MZ', 'application/octet-stream') })).status).toBe(415);

    const metadata = await ok(await api(`/sources/${source.id}/files/${second.id}?include_content=false`));
    expect(metadata).toMatchObject({ id: second.id, file_name: 'b.txt', original_file_name: 'b.txt', content: null });

    expect((await api(`/sources/${source.id}/${second.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/sources/${source.id}/files/${second.id}`)).status).toBe(404);
    expect(await ok(await api(`/sources/${source.id}/agents`))).toEqual([]);
    expect(await ok(await api(`/sources/${source.id}/passages`))).toBeInstanceOf(Array);
    expect(await ok(await api('/sources/metadata'))).toMatchObject({ total_files: expect.any(Number), sources: [] });
  });
});
