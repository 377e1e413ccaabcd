import { Client, Connection } from '@temporalio/client';

export type TemporalClientOptions = { address: string; namespace: string };

export async function createTemporalClient(options: TemporalClientOptions): Promise<Client> {
  const connection = await Connection.connect({ address: options.address, connectTimeout: 5000 });
  return new Client({ connection, namespace: options.namespace });
}
