import { describe, expect, it } from 'vitest';
import { pickNamedSpeaker, relayedText, saysTerminationToken, speakerChoicePrompt } from './speakers.js';

const candidates = [
  { id: 'agent-a', name: 'Ann' },
  { id: 'agent-b', name: 'Bob' },
  { id: 'agent-ab', name: 'Ann Marie' },
];

describe('pickNamedSpeaker', () => {
  it('finds the candidate the reply names, whatever its case', () => {
    expect(pickNamedSpeaker('bob should answer this', candidates)).toBe('agent-b');
    expect(pickNamedSpeaker('Next: BOB.', candidates)).toBe('agent-b');
  });

  it('takes the earliest mention, and the longer name where names overlap', () => {
    expect(pickNamedSpeaker('Bob, then Ann', candidates)).toBe('agent-b');
    expect(pickNamedSpeaker('Ann Marie knows', candidates)).toBe('agent-ab');
  });

  it('matches whole words only, and answers null when nobody is named', () => {
    expect(pickNamedSpeaker('Annabel and Bobby', candidates)).toBeNull();
    expect(pickNamedSpeaker('', candidates)).toBeNull();
  });
});

describe('saysTerminationToken', () => {
  it('is true when the reply contains the token, never without one', () => {
    expect(saysTerminationToken('We are finished. DONE!', 'DONE!')).toBe(true);
    expect(saysTerminationToken('Not done yet', 'DONE!')).toBe(false);
    expect(saysTerminationToken('DONE!', null)).toBe(false);
  });
});

describe('prompts', () => {
  it('asks the manager for one name among the candidates and says how to stop', () => {
    const prompt = speakerChoicePrompt(candidates.slice(0, 2), 'DONE!');
    expect(prompt).toContain('Ann, Bob');
    expect(prompt).toContain('DONE!');
    expect(speakerChoicePrompt(candidates.slice(0, 2), null)).not.toContain('instead');
  });

  it('relays what another member said with its name', () => {
    expect(relayedText('Bob', 'hello')).toBe('Bob: hello');
  });
});
