/**
 * The console features this deployment offers, as the console asks for them. Billing is shown whether or not
 * ENGRAM_BILLING enforces anything: a self-hosted install still meters every step and has usage to show. Templates
 * belong to later work; until then the console hides them.
 */
export const FEATURE_FLAGS: Readonly<Record<string, boolean>> = {
  PROJECTS: true,
  API_KEYS: true,
  TEAM_MEMBERS: true,
  ENVIRONMENT_VARIABLES: true,
  DEVELOPMENT_SERVERS: true,
  PHONE_VERIFICATION: true,
  BILLING: true,
  TEMPLATES: false,
};
