import { randomBytes, randomInt } from 'node:crypto';

const ADJECTIVES = [
  'amber', 'brave', 'calm', 'clever', 'cosmic', 'curious', 'daring', 'eager', 'gentle', 'golden',
  'happy', 'humble', 'keen', 'lively', 'lucid', 'mellow', 'nimble', 'noble', 'patient', 'quiet',
  'rapid', 'serene', 'steady', 'swift', 'vivid', 'witty',
];

const NOUNS = [
  'atlas', 'beacon', 'cedar', 'comet', 'delta', 'ember', 'falcon', 'harbor', 'heron', 'island',
  'lantern', 'maple', 'meadow', 'nebula', 'orbit', 'otter', 'pine', 'quartz', 'river', 'sparrow',
  'summit', 'thistle', 'tide', 'willow', 'zenith',
];

/** `swift-heron-3f9a`: readable, and the random suffix keeps names apart in a busy organization. */
export function generateAgentName(): string {
  const adjective = ADJECTIVES[randomInt(ADJECTIVES.length)];
  const noun = NOUNS[randomInt(NOUNS.length)];
  return `${adjective}-${noun}-${randomBytes(2).toString('hex')}`;
}

/** Word characters of any script, spaces, dashes, underscores and apostrophes, as the public API allows. */
const AGENT_NAME = /^[\p{L}\p{M}\p{N}_ '-]+$/u;

export function isValidAgentName(name: string): boolean {
  return AGENT_NAME.test(name);
}
