/** Test factories: things tests need made through the API, with defaults that keep each test about its own point. */
export { postV1, type ApiTarget } from './http.js';
export { createAgent, TEST_MODEL, type CreatedAgent } from './agents.js';
