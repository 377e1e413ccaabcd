export { startTestStack, type TestStack, type TestStackOptions } from './stack.js';
export { freePort } from './ports.js';
export * from './model-server/index.js';
export * from './sse.js';
export * from './processes.js';
export * from './crash-test.js';
