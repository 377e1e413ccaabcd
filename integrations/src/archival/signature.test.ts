import { describe, expect, it } from 'vitest';
import { createSignatureHasher, SIGNATURE_BITS } from './signature.js';
import { unitVector } from './vectors.js';

function hamming(a: string, b: string): number {
  let distance = 0;
  for (let index = 1; index < a.length; index++) {
    let differing = parseInt(a[index]!, 16) ^ parseInt(b[index]!, 16);
    for (; differing; differing &= differing - 1) distance++;
  }
  return distance;
}

/** A unit vector at `angle` radians from the first axis, in the plane of the first two. */
const atAngle = (angle: number, dim: number) => unitVector(Array.from({ length: dim }, (_, index) => (index === 0 ? Math.cos(angle) : index === 1 ? Math.sin(angle) : 0)));

describe('random-hyperplane signatures', () => {
  it('are bit(1024) hex literals, the same for the same vector in any hasher', () => {
    const vector = unitVector([0.3, -0.2, 0.9, 0.1]);
    const signature = createSignatureHasher().signature(vector);
    expect(signature).toMatch(new RegExp(`^x[0-9a-f]{${SIGNATURE_BITS / 4}}$`));
    expect(createSignatureHasher().signature(vector)).toBe(signature);
  });

  it('differ in about angle/π of their bits, so Hamming distance orders by angle', () => {
    const hasher = createSignatureHasher();
    const origin = hasher.signature(atAngle(0, 64));
    for (const angle of [Math.PI / 8, Math.PI / 4, Math.PI / 2, Math.PI]) {
      expect(hamming(origin, hasher.signature(atAngle(angle, 64))) / SIGNATURE_BITS).toBeCloseTo(angle / Math.PI, 1);
    }
  });
});
