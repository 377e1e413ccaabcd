export { buildApp, type AppDeps } from './app.js';
export { parseApiConfig, ENGRAM_VERSION, type ApiConfig } from './config.js';
export { createServices, type AppServices, type ServiceDeps } from './services/index.js';
export * from './errors.js';
