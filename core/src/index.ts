export * from './letta-message.js';
export * from './model.js';
export * from './agent-state.js';
export * from './stored-message.js';
