import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '@engram/testing';
import { checkClientAgreement, declaresSuccess, servedOperations, type AgreementReport, type OpenApiDocument } from '@engram/testing/client-contract/client-agreement';
import { listClientOperations } from '@engram/testing/client-contract/client-operations';
import { KIT_WIRE_TYPES_PATH, wireTypesSource } from '@engram/testing/client-contract/wire-types-source';

/**
 * Where Engram knowingly answers outside the client's types, and why. Each is matched against
 * `<operation>: <disagreement>`; one that no longer occurs fails the test, so the list stays true.
 */
const KNOWN_DEVIATIONS: Array<{ match: RegExp; why: string }> = [
  {
    match: /\.(model|embedding)_endpoint_type: the client knows only /,
    why:
      "An endpoint type is the type of the provider serving the model: four provider types (cerebras, letta, lmstudio_openai, sglang) are not among the client's endpoint types, and an llm_config given by a caller keeps the endpoint type it names.",
  },
  {
    match: /^((agents|runs|steps|conversations)\.messages\.(create|list)|messages\.(list|retrieve)): \$(\.messages)?\[\]\.content: the client reads a string, ours is an array$/,
    why: "A user message's content parts are answered as they were sent: text and images as the client types them, and any other part a caller sent (a send accepts parts of any type) as it came.",
  },
  {
    match: /^(agents|conversations)\.messages\.compact: \$\.summary: may be null/,
    why: 'Summarizing an agent (or a conversation) that has nothing to compact yet and no earlier summary answers `summary: null`: there is no summary to return, and an empty string would read as one.',
  },
  {
    match: /^agents\.exportFile: \$: the client reads a string, ours is an object$/,
    why: 'The client types an exported agent file as a string, but the server answers the JSON document, which the client parses.',
  },
];

let stack: TestStack;
let document: OpenApiDocument;
let report: AgreementReport;

beforeAll(async () => {
  stack = await startTestStack({ inProcessWorker: false });
  document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  report = checkClientAgreement(listClientOperations(), document);
});

afterAll(() => stack?.stop());

describe('the official client against /openapi.json', () => {
  it('finds every operation the client calls, and prints the ones not served yet', () => {
    const served = report.agreements.length;
    const total = served + report.unserved.length;
    console.log(
      `@letta-ai/letta-client: ${served} of ${total} operations served; ${report.unserved.length} not served yet:\n` +
        report.unserved.map((operation) => `  ${operation.name.padEnd(32)} ${operation.method} ${operation.path}`).join('\n'),
    );
    // The client reads its operations from its own sources: a parse that lost most of them is a broken parse.
    expect(total).toBeGreaterThan(120);
    expect(served).toBeGreaterThan(90);
  });

  it('agrees with the response types of every operation Engram serves, but for the known deviations', () => {
    const problems = report.agreements.flatMap(({ operation, problems }) => problems.map((problem) => `${operation.name}: ${problem}`));
    const unexplained = problems.filter((problem) => !KNOWN_DEVIATIONS.some((deviation) => deviation.match.test(problem)));
    const stale = KNOWN_DEVIATIONS.filter((deviation) => !problems.some((problem) => deviation.match.test(problem)));
    console.log(`Known deviations from the client's types:\n${KNOWN_DEVIATIONS.map((deviation) => `  ${deviation.why}`).join('\n')}`);
    expect(unexplained).toEqual([]);
    expect(stale.map((deviation) => deviation.why)).toEqual([]);
  });

  it('has a response schema for every served operation', () => {
    const undeclared = report.agreements.filter((agreement) => !agreement.declared);
    expect(undeclared.map(({ operation, route }) => `${operation.name}: ${route.method} ${route.documentedPath}`)).toEqual([]);
  });
});

describe('/openapi.json', () => {
  it('declares the success response of every operation, /v1 and the console API alike', () => {
    const routes = servedOperations(document);
    const undeclared = routes.filter((route) => !declaresSuccess(route));
    expect(routes.filter((route) => route.path.startsWith('/v1/')).length).toBeGreaterThan(150);
    expect(routes.filter((route) => route.path.startsWith('/api/')).length).toBeGreaterThan(60);
    expect(undeclared.map((route) => `${route.method} ${route.documentedPath}`)).toEqual([]);
  });
});

describe("the console kit's wire types", () => {
  it('are what the components of /openapi.json generate (npm run contracts:kit-types writes them)', () => {
    const committed = readFileSync(new URL(`../../../${KIT_WIRE_TYPES_PATH}`, import.meta.url), 'utf8');
    expect(committed, `${KIT_WIRE_TYPES_PATH} is stale: run npm run contracts:kit-types`).toBe(wireTypesSource(document.components?.schemas ?? {}));
  });
});
