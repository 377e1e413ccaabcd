export * from './execute-tool.js';
export * from './semantic-search-files.js';
export * from './tool-runner.js';
