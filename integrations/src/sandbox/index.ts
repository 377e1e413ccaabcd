export * from './child-process.js';
export * from './local-sandbox.js';
export * from './venv.js';
export * from './isolation.js';
