import { UserError } from '../errors.js';
import type { Random } from '../common/random.js';

/**
 * Picks transaction types from a shuffled deck holding each type `weight` times (after dividing
 * by the weights' common divisor), as go-tpc and the TPC-C spec (5.2.4.2) do: the mix holds
 * exactly over every deck, not only on average.
 */
export class Deck {
  private readonly cards: number[];
  private position: number;

  constructor(
    weights: readonly number[],
    private readonly random: Random,
  ) {
    checkWeights(weights);
    const divisor = weights.reduce((a, b) => gcd(a, b));
    this.cards = weights.flatMap((w, type) => Array<number>(w / divisor).fill(type));
    this.position = this.cards.length;
  }

  next(): number {
    if (this.cards.length === 1) return this.cards[0]!;
    if (this.position === this.cards.length) this.shuffle();
    return this.cards[this.position++]!;
  }

  private shuffle(): void {
    for (let i = this.cards.length - 1; i > 0; i--) {
      const j = this.random.int(0, i);
      [this.cards[i], this.cards[j]] = [this.cards[j]!, this.cards[i]!];
    }
    this.position = 0;
  }
}

/** A mix the deck can deal: whole, non-negative weights, not all zero. */
export function checkWeights(weights: readonly number[]): void {
  if (weights.some((w) => !Number.isInteger(w) || w < 0) || weights.every((w) => w === 0)) {
    throw new UserError(`transaction weights must be whole numbers, not all zero (got ${weights.join(', ')})`, 'give each transaction a weight such as @1');
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
