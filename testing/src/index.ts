export { startTestStack, type TestStack, type TestStackOptions } from './stack.js';
export { reservePort } from './ports.js';
export * from './until.js';
export * from './model-server/index.js';
export * from './sse.js';
export * from './processes.js';
export * from './crash-test.js';
