import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Provider } from '@engram/db';
import { startAgentTestContext } from '@engram/testing/agent-test-context';

/** A provider that refuses every key, answering as OpenAI does. */
async function startRefusingProvider(): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(401, { 'content-type': 'application/json' }).end(
      JSON.stringify({ error: { message: 'Incorrect API key provided: sk-wrong.', type: 'invalid_request_error', code: 'invalid_api_key' } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const { stack, model, api, send, stop } = await startAgentTestContext({ inProcessWorker: false });
const refusing = await startRefusingProvider();
const refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1`;

afterAll(async () => {
  await stop();
  await new Promise((resolve) => refusing.close(resolve));
});

let counter = 0;
const providerName = () => `byok-${++counter}-${Date.now()}`;

describe('providers', () => {
  it('stores the key encrypted and only ever shows it masked', async () => {
    const name = providerName();
    const response = await send('POST', '/providers/', {
      name,
      provider_type: 'openai',
      api_key: 'sk-live-abcdef123456',
      base_url: model.url,
    });
    expect(response.status).toBe(200);
    const provider = await response.json();
    expect(provider).toEqual({
      id: expect.stringMatching(/^provider-/),
      name,
      provider_type: 'openai',
      provider_category: 'byok',
      api_key: 'sk-l****3456',
      access_key: null,
      base_url: model.url,
      region: null,
      api_version: null,
      organization_id: stack.tenant.organizationId,
      updated_at: expect.any(String),
      last_synced: null,
      api_key_enc: null,
      access_key_enc: null,
    });

    const row = await Provider.query(stack.db).findById(provider.id);
    expect(row!.apiKeyEnc).toMatch(/^v1:/);
    expect(row!.apiKeyEnc).not.toContain('sk-live-abcdef123456');

    const listed = await (await api(`/providers?name=${name}`)).json();
    expect(listed).toEqual([provider]);
    expect(JSON.stringify(await (await api('/providers')).json())).not.toContain('sk-live-abcdef123456');
  });

  it('gets, updates, filters and deletes', async () => {
    const created = await (
      await send('POST', '/providers', { name: providerName(), provider_type: 'groq', api_key: 'gsk-first-key-0001' })
    ).json();

    expect(await (await api(`/providers/${created.id}`)).json()).toMatchObject({ id: created.id, api_key: 'gsk-****0001' });

    const updated = await send('PATCH', `/providers/${created.id}`, { api_key: 'gsk-second-key-0002', region: 'eu' });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ api_key: 'gsk-****0002', region: 'eu', provider_type: 'groq' });

    const groq = await (await api('/providers/?provider_type=groq')).json();
    expect(groq.map((provider: { id: string }) => provider.id)).toEqual([created.id]);

    const deleted = await api(`/providers/${created.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ message: `Provider id=${created.id} successfully deleted` });
    expect((await api(`/providers/${created.id}`)).status).toBe(404);
  });

  it('refuses duplicate names, the name of a base provider, and malformed bodies', async () => {
    const name = providerName();
    expect((await send('POST', '/providers', { name, provider_type: 'openai', api_key: 'k1' })).status).toBe(200);
    const duplicate = await send('POST', '/providers', { name, provider_type: 'openai', api_key: 'k2' });
    expect(duplicate.status).toBe(409);
    expect((await send('POST', '/providers', { name: 'openai', provider_type: 'openai', api_key: 'k3' })).status).toBe(409);

    const missingKey = await send('POST', '/providers', { name: providerName(), provider_type: 'openai' });
    expect(missingKey.status).toBe(422);
    expect((await missingKey.json()).detail).toEqual([{ loc: ['body', 'api_key'], msg: expect.any(String), type: 'invalid_type' }]);

    const badType = await send('POST', '/providers', { name: providerName(), provider_type: 'telepathy', api_key: 'k' });
    expect(badType.status).toBe(422);
    expect((await badType.json()).detail[0].loc).toEqual(['body', 'provider_type']);

    const slashed = await send('POST', '/providers', { name: 'a/b', provider_type: 'openai', api_key: 'k' });
    expect(slashed.status).toBe(422);
  });

  it("hides another organization's providers", async () => {
    const other = await stack.createTenant();
    const foreign = await (await send('POST', '/providers', { name: providerName(), provider_type: 'openai', api_key: 'k' }, other.apiKey.key)).json();
    expect((await api(`/providers/${foreign.id}`)).status).toBe(404);
    expect((await send('PATCH', `/providers/${foreign.id}`, { region: 'x' })).status).toBe(404);
    expect((await api(`/providers/${foreign.id}`, { method: 'DELETE' })).status).toBe(404);
    const mine = await (await api('/providers')).json();
    expect(mine.map((provider: { id: string }) => provider.id)).not.toContain(foreign.id);
  });
});

describe('checking provider keys', () => {
  it('answers 200 for a key the provider accepts', async () => {
    const response = await send('POST', '/providers/check', { provider_type: 'openai', api_key: 'sk-good', base_url: model.url });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: 'Valid api key for provider_type=openai' });
  });

  it("answers 401 with the provider's message for a refused key, stored or not", async () => {
    const response = await send('POST', '/providers/check', { provider_type: 'openai', api_key: 'sk-wrong', base_url: refusingUrl });
    expect(response.status).toBe(401);
    expect((await response.json()).detail).toContain('Incorrect API key provided');

    const stored = await (
      await send('POST', '/providers', { name: providerName(), provider_type: 'openai', api_key: 'sk-wrong', base_url: refusingUrl })
    ).json();
    const storedCheck = await api(`/providers/${stored.id}/check`, { method: 'POST' });
    expect(storedCheck.status).toBe(401);
    expect((await storedCheck.json()).detail).toContain('Incorrect API key provided');

    const good = await (
      await send('POST', '/providers', { name: providerName(), provider_type: 'openai', api_key: 'sk-good', base_url: model.url })
    ).json();
    const goodCheck = await api(`/providers/${good.id}/check`, { method: 'POST' });
    expect(await goodCheck.json()).toEqual({ message: 'Valid api key for provider_type=openai' });
  });
});
