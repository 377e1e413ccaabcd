/**
 * oidc-provider prints "Unsupported runtime. Use Node.js v22.x LTS" when it is imported on Node 20, where it
 * runs and is tested here (Engram supports Node ≥ 20.19 until it moves to 22). That line would be printed by
 * every API start and stand before the one clear line a bad configuration gets, so exactly it is dropped; every
 * other warning passes. Imported ahead of oidc-provider by each module that loads it.
 */
const UNSUPPORTED_RUNTIME_WARNING = 'oidc-provider WARNING: Unsupported runtime.';

const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].includes(UNSUPPORTED_RUNTIME_WARNING)) return;
  warn(...args);
};
