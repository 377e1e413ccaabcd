export * from './chunker.js';
export * from './file-types.js';
export * from './parse.js';
